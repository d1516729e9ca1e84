package dev.limiter.sample.gateway.mvc;

import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

import dev.limiter.gateway.mvc.LimiterFilterFunctions;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * A Spring Cloud Gateway (Server MVC) in front of one backend, {@code sample.backend-uri}: the routes of
 * application.yml, and one route in Java below, all limited by Limiter's filter function on Redis with the
 * limits of application.yml.
 */
@SpringBootApplication
public class GatewayMvcSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(GatewayMvcSampleApplication.class, args);
    }

    /** GET /reports/**, per X-User-Id: each report takes 2 permits of limiter reports. */
    @Bean
    RouterFunction<ServerResponse> reportsRoute(@Value("${sample.backend-uri}") String backendUri) {
        return route("reports").GET("/reports/**", http())
            .before(uri(backendUri))
            .filter(LimiterFilterFunctions.limiter("reports", "#request.getHeader('X-User-Id')", "2"))
            .build();
    }
}
