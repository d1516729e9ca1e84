package dev.limiter.sample.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A small quote service on Spring WebFlux whose API is rate limited per user through Redis, without blocking a thread. */
@SpringBootApplication
public class WebFluxSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(WebFluxSampleApplication.class, args);
    }
}
