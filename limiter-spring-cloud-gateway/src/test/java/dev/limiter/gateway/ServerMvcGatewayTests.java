package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.gateway.mvc.LimiterFilterFunctions;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.spring.web.RateLimitExceededHandler;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The Server MVC gateway on a real Redis, routing to a real backend: the Limiter filter function in YAML
 * routes and in a Java route, one limit per route and per caller across two gateway instances. Limiter's
 * clock stands still at the same instant in every gateway, so that no window ends while a test counts.
 */
@RedisTest
class ServerMvcGatewayTests {

    @RegisterExtension
    static final Backend backend = Backend.perClass();

    static List<String> properties(String redisUrl, String keyPrefix) {
        String routes = "spring.cloud.gateway.server.webmvc.routes";
        return new ArrayList<>(List.of("spring.data.redis.url=" + redisUrl, "limiter.key-prefix=" + keyPrefix, "limiter.redis.timeout=2s",
                "limiter.redis.connect-timeout=5s",
                // Both gateways are on the test class path: the reactive one's Redis configuration has no place here.
                "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration,"
                        + "org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration",
                "spring.cloud.gateway.server.webflux.enabled=false",
                "limiter.limiters.orders.algorithm=fixed-window", "limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=1h",
                routes + "[0].id=orders", routes + "[0].uri=" + backend.url(), routes + "[0].predicates[0]=Path=/orders/**",
                routes + "[0].filters[0]=Limiter=orders",
                "limiter.limiters.per-caller.limit=3", "limiter.limiters.per-caller.window=1h",
                routes + "[1].id=catalog", routes + "[1].uri=" + backend.url(), routes + "[1].predicates[0]=Path=/catalog/**",
                routes + "[1].filters[0].name=Limiter", routes + "[1].filters[0].args.limiter=per-caller",
                routes + "[1].filters[0].args.key=#request.getHeader('X-Api-Key')",
                "limiter.limiters.java-route.limit=2", "limiter.limiters.java-route.window=1h", "test.backend=" + backend.url()));
    }

    @Test
    void aYamlRouteAdmitsExactlyItsLimitAcrossTwoGateways(TestRedis redis) {
        String prefix = ReactiveGatewayTests.uniquePrefix();
        try (Gateway one = start(redis.url(), prefix); Gateway two = start(redis.url(), prefix)) {
            LimitCheck.assertExact("route orders", ReactiveGatewayTests.admittedAlternating(one, two, "/orders/1", Map.of(), 20), 5);
        }
    }

    @Test
    void eachCallerHasItsOwnLimitAcrossTwoGateways(TestRedis redis) {
        String prefix = ReactiveGatewayTests.uniquePrefix();
        try (Gateway one = start(redis.url(), prefix); Gateway two = start(redis.url(), prefix)) {
            LimitCheck.assertExact("caller a", ReactiveGatewayTests.admittedAlternating(one, two, "/catalog/x", Map.of("X-Api-Key", "a"), 10), 3);
            LimitCheck.assertExact("caller b", ReactiveGatewayTests.admittedAlternating(one, two, "/catalog/x", Map.of("X-Api-Key", "b"), 10), 3);
        }
    }

    @Test
    void aJavaRouteIsLimitedByTheFilterFunction(TestRedis redis) {
        String prefix = ReactiveGatewayTests.uniquePrefix();
        try (Gateway one = start(redis.url(), prefix); Gateway two = start(redis.url(), prefix)) {
            LimitCheck.assertExact("java route", ReactiveGatewayTests.admittedAlternating(one, two, "/java/x", Map.of(), 8), 2);
        }
    }

    @Test
    void answersCarryTheRateLimitFieldsAndARejectionIsA429WithAProblemDetail(TestRedis redis) {
        try (Gateway gateway = start(redis.url(), ReactiveGatewayTests.uniquePrefix())) {
            HttpResponse<String> first = gateway.get("/orders/1");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("ok");
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=3600");
            assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying((value) -> assertThat(value).startsWith("\"orders\";r=4;t="));
            // In RedisRateLimiter's terms, 5 an hour counts 720 tokens a permit (a replenish rate of 1 a second).
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("2880");
            for (int i = 0; i < 4; i++) {
                assertThat(gateway.get("/orders/1").statusCode()).isEqualTo(200);
            }
            int served = backend.served();
            HttpResponse<String> rejected = gateway.get("/orders/1");
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(backend.served()).as("requests reaching the backend").isEqualTo(served);
            assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
            assertThat(rejected.headers().firstValue("RateLimit")).hasValueSatisfying((value) -> assertThat(value).startsWith("\"orders\";r=0;t="));
            assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying((type) -> assertThat(type).contains("problem+json"));
            // As Spring MVC and the reactive gateway answer a problem detail: the request's path is its instance.
            assertThat(rejected.body()).contains("\"status\":429", "\"limiter\":\"orders\"", "\"instance\":\"/orders/1\"");
        }
    }

    @Test
    void aMissingKeyFollowsOnMissingKey(TestRedis redis) {
        try (Gateway reject = start(redis.url(), ReactiveGatewayTests.uniquePrefix(), List.of("limiter.on-missing-key=reject"))) {
            HttpResponse<String> rejected = reject.get("/catalog/x");
            assertThat(rejected.statusCode()).isEqualTo(400);
            assertThat(rejected.body()).contains("\"limiter\":\"per-caller\"", "\"instance\":\"/catalog/x\"");
        }
    }

    /** docs/gateway.md, "A missing key: 403 or 400": a route moved from RequestRateLimiter keeps its 403. */
    @Test
    void aHandlerOfTheApplicationsOwnAnswersAMissingKeyAsItChooses(TestRedis redis) {
        try (Gateway gateway = start(redis.url(), ReactiveGatewayTests.uniquePrefix(), List.of("limiter.on-missing-key=reject"),
                MissingKeyForbidden.class)) {
            HttpResponse<String> refused = gateway.get("/catalog/x");
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.body()).isEmpty();
            // Everything else the handler does stays as it was: a rejection is still a 429 with its problem detail.
            for (int i = 0; i < 3; i++) {
                assertThat(gateway.get("/catalog/x", Map.of("X-Api-Key", "a")).statusCode()).isEqualTo(200);
            }
            HttpResponse<String> rejected = gateway.get("/catalog/x", Map.of("X-Api-Key", "a"));
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.body()).contains("\"limiter\":\"per-caller\"");
        }
    }

    @Test
    void whileRedisIsOutTheFailurePolicyAnswers() {
        try (TestRedis own = TestRedis.start()) {
            List<String> deny = List.of("limiter.on-redis-failure=deny", "limiter.redis.timeout=200ms");
            List<String> allow = List.of("limiter.on-redis-failure=allow", "limiter.redis.timeout=200ms");
            try (Gateway closed = start(own.url(), ReactiveGatewayTests.uniquePrefix(), deny);
                    Gateway open = start(own.url(), ReactiveGatewayTests.uniquePrefix(), allow)) {
                assertThat(closed.get("/orders/1").statusCode()).isEqualTo(200);
                own.kill();
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> denied = closed.get("/orders/1");
                    assertThat(denied.statusCode()).isEqualTo(429);
                    assertThat(denied.headers().firstValue("Retry-After")).hasValue("1");
                }
                for (int i = 0; i < 8; i++) {
                    assertThat(open.get("/orders/1").statusCode()).isEqualTo(200);
                }
            }
        }
    }

    private static Gateway start(String redisUrl, String prefix) {
        return start(redisUrl, prefix, List.of());
    }

    private static Gateway start(String redisUrl, String prefix, List<String> more, Class<?>... beans) {
        List<String> properties = properties(redisUrl, prefix);
        properties.addAll(more);
        List<Class<?>> sources = new ArrayList<>(List.of(JavaRoutes.class, GatewayFeaturesTests.FrozenTime.class));
        sources.addAll(List.of(beans));
        return Gateway.start(WebApplicationType.SERVLET, properties, sources.toArray(Class<?>[]::new));
    }

    /** The application's handler: 403 and no body for a request without a key, the rest as Limiter answers. */
    @Configuration(proxyBeanMethods = false)
    static class MissingKeyForbidden {

        @Bean
        RateLimitExceededHandler rateLimitExceededHandler(RateLimiterRegistry registry) {
            return new RateLimitExceededHandler(registry) {
                @Override
                public ResponseEntity<ProblemDetail> handleMissingKey(MissingRateLimitKeyException ex) {
                    return ResponseEntity.status(HttpStatus.FORBIDDEN).build();
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JavaRoutes {

        @Bean
        RouterFunction<ServerResponse> javaRoute(org.springframework.core.env.Environment environment) {
            return route("java-route").GET("/java/**", http())
                .before(uri(environment.getRequiredProperty("test.backend")))
                .filter(LimiterFilterFunctions.limiter("java-route"))
                .build();
        }
    }
}
