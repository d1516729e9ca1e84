package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.limiter.gateway.mvc.LimiterFilterFunctions;
import dev.limiter.test.RedisControl;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * {@code limiter.enabled=false} at a running gateway, reactive and Server MVC, on a real Redis: every route
 * naming Limiter still loads and admits every request, beyond its limit, with no RateLimit or X-RateLimit-*
 * field and nothing written to Redis, as {@code @RateLimited} methods then run unlimited.
 */
@RedisTest
class GatewayDisabledTests {

    private static final int REQUESTS = 6;

    @RegisterExtension
    static final Backend backend = Backend.perClass();

    @Test
    void theReactiveGatewaysRoutesRunUnlimited(TestRedis redis) {
        String routes = "spring.cloud.gateway.server.webflux.routes";
        String prefix = ReactiveGatewayTests.uniquePrefix();
        List<String> properties = List.of("limiter.enabled=false", "spring.data.redis.url=" + redis.url(), "limiter.key-prefix=" + prefix,
                "limiter.limiters.orders.limit=2", "limiter.limiters.orders.window=1h",
                routes + "[0].id=orders", routes + "[0].uri=" + backend.url(), routes + "[0].predicates[0]=Path=/orders/**",
                routes + "[0].filters[0]=Limiter=orders",
                routes + "[1].id=catalog", routes + "[1].uri=" + backend.url(), routes + "[1].predicates[0]=Path=/catalog/**",
                routes + "[1].filters[0].name=Limiter", routes + "[1].filters[0].args.limiter=orders",
                routes + "[1].filters[0].args.key=#request.headers['X-Api-Key']",
                routes + "[2].id=legacy", routes + "[2].uri=" + backend.url(), routes + "[2].predicates[0]=Path=/legacy/**",
                routes + "[2].filters[0].name=RequestRateLimiter", routes + "[2].filters[0].args.rate-limiter=#{@limiter}",
                routes + "[2].filters[0].args.key-resolver=#{@apiKeyResolver}", routes + "[2].filters[0].args.limiter.name=orders",
                routes + "[2].filters[0].args.limiter.cost=2",
                // The route's id names a limiter configured nowhere: with Limiter disabled, nothing is checked either.
                routes + "[3].id=unconfigured", routes + "[3].uri=" + backend.url(), routes + "[3].predicates[0]=Path=/unconfigured/**",
                routes + "[3].filters[0]=Limiter");
        try (Gateway gateway = Gateway.start(WebApplicationType.REACTIVE, properties, KeyResolvers.class)) {
            for (String path : List.of("/orders/1", "/catalog/1", "/legacy/1", "/unconfigured/1")) {
                assertAllAdmittedWithoutFields(gateway, path);
            }
            assertNothingInRedis(redis, prefix);
        }
    }

    @Test
    void theServerMvcGatewaysRoutesRunUnlimited(TestRedis redis) {
        String routes = "spring.cloud.gateway.server.webmvc.routes";
        String prefix = ReactiveGatewayTests.uniquePrefix();
        List<String> properties = List.of("limiter.enabled=false", "spring.data.redis.url=" + redis.url(), "limiter.key-prefix=" + prefix,
                "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration,"
                        + "org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration",
                "spring.cloud.gateway.server.webflux.enabled=false", "test.backend=" + backend.url(),
                "limiter.limiters.orders.limit=2", "limiter.limiters.orders.window=1h",
                routes + "[0].id=orders", routes + "[0].uri=" + backend.url(), routes + "[0].predicates[0]=Path=/orders/**",
                routes + "[0].filters[0]=Limiter=orders",
                routes + "[1].id=catalog", routes + "[1].uri=" + backend.url(), routes + "[1].predicates[0]=Path=/catalog/**",
                routes + "[1].filters[0].name=Limiter", routes + "[1].filters[0].args.limiter=orders",
                routes + "[1].filters[0].args.key=#request.getHeader('X-Api-Key')");
        try (Gateway gateway = Gateway.start(WebApplicationType.SERVLET, properties, JavaRoutes.class)) {
            for (String path : List.of("/orders/1", "/catalog/1", "/java/1", "/java-keyed/1")) {
                assertAllAdmittedWithoutFields(gateway, path);
            }
            assertNothingInRedis(redis, prefix);
        }
    }

    /** More requests than any limit, each with a key: all reach the backend, and no answer carries a rate limit field. */
    private static void assertAllAdmittedWithoutFields(Gateway gateway, String path) {
        int served = backend.served();
        for (int i = 0; i < REQUESTS; i++) {
            HttpResponse<String> response = gateway.get(path, Map.of("X-Api-Key", "a"));
            assertThat(response.statusCode()).as("status of request " + i + " to " + path).isEqualTo(200);
            assertThat(response.headers().map().keySet()).as("fields of the answer to " + path)
                .noneMatch((name) -> name.toLowerCase(Locale.ROOT).contains("ratelimit"))
                .noneMatch((name) -> name.equalsIgnoreCase("Retry-After"));
        }
        assertThat(backend.served() - served).as("requests to " + path + " reaching the backend").isEqualTo(REQUESTS);
    }

    private static void assertNothingInRedis(TestRedis redis, String prefix) {
        try (RedisControl control = RedisControl.of(redis)) {
            assertThat((List<?>) control.ok("KEYS", prefix + "*")).as("keys under " + prefix).isEmpty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class KeyResolvers {

        @Bean
        KeyResolver apiKeyResolver() {
            return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JavaRoutes {

        @Bean
        RouterFunction<ServerResponse> javaRoute(Environment environment) {
            return route("java-route").GET("/java/**", http())
                .before(uri(environment.getRequiredProperty("test.backend")))
                .filter(LimiterFilterFunctions.limiter("orders", "#request.getHeader('X-Api-Key')"))
                .build();
        }

        @Bean
        RouterFunction<ServerResponse> javaKeyedRoute(Environment environment) {
            return route("java-keyed-route").GET("/java-keyed/**", http())
                .before(uri(environment.getRequiredProperty("test.backend")))
                .filter(LimiterFilterFunctions.limiter("orders", (request) -> request.headers().firstHeader("X-Api-Key")))
                .build();
        }
    }
}
