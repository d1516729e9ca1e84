package dev.limiter.sample.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud Gateway (reactive) in front of one backend, {@code sample.backend-uri}: its routes and
 * their limits are all in application.yml, decided by Limiter on Redis.
 */
@SpringBootApplication
public class GatewaySampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(GatewaySampleApplication.class, args);
    }

    /** The caller of a RequestRateLimiter route, as the gateway's own routes name it: the X-User-Id header. */
    @Bean
    KeyResolver userKeyResolver() {
        return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User-Id"));
    }
}
