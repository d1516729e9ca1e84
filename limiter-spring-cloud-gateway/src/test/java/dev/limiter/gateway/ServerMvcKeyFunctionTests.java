package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.limiter.gateway.mvc.LimiterFilterFunctions;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The Server MVC gateway's Limiter filter function with its key given by a Java function of the request,
 * as Bucket4j's filter functions take a key resolver: one limit per key across two gateways on a real
 * Redis, a cost, and a missing key following limiter.on-missing-key.
 */
@RedisTest
class ServerMvcKeyFunctionTests {

    @RegisterExtension
    static final Backend backend = Backend.perClass();

    @Test
    void eachKeyTheFunctionGivesHasItsOwnLimitAcrossTwoGateways(TestRedis redis) {
        String prefix = ReactiveGatewayTests.uniquePrefix();
        try (Gateway one = start(redis, prefix, List.of()); Gateway two = start(redis, prefix, List.of())) {
            LimitCheck.assertExact("caller a", ReactiveGatewayTests.admittedAlternating(one, two, "/keyed/x", Map.of("X-Api-Key", "a"), 8), 3);
            LimitCheck.assertExact("caller b", ReactiveGatewayTests.admittedAlternating(one, two, "/keyed/x", Map.of("X-Api-Key", "b"), 8), 3);
            HttpResponse<String> rejected = one.get("/keyed/x", Map.of("X-Api-Key", "a"));
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.body()).contains("\"limiter\":\"per-caller\"");
        }
    }

    @Test
    void eachRequestTakesTheCostGiven(TestRedis redis) {
        String prefix = ReactiveGatewayTests.uniquePrefix();
        try (Gateway one = start(redis, prefix, List.of()); Gateway two = start(redis, prefix, List.of())) {
            LimitCheck.assertExact("caller a, 2 permits each", ReactiveGatewayTests.admittedAlternating(one, two, "/costly/x",
                    Map.of("X-Api-Key", "a"), 8), 3);
            HttpResponse<String> first = one.get("/costly/x", Map.of("X-Api-Key", "b"));
            // 2 permits, in RedisRateLimiter's terms for 6 an hour: a replenish rate of 1 token a second, 600 tokens a permit.
            assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("1200");
        }
    }

    @Test
    void aMissingKeyFollowsOnMissingKey(TestRedis redis) {
        try (Gateway reject = start(redis, ReactiveGatewayTests.uniquePrefix(), List.of("limiter.on-missing-key=reject"))) {
            HttpResponse<String> rejected = reject.get("/keyed/x");
            assertThat(rejected.statusCode()).isEqualTo(400);
            assertThat(rejected.body()).contains("\"limiter\":\"per-caller\"");
        }
        try (Gateway skip = start(redis, ReactiveGatewayTests.uniquePrefix(), List.of("limiter.on-missing-key=skip"))) {
            for (int i = 0; i < 5; i++) {
                assertThat(skip.get("/keyed/x").statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void aCostBelowOneIsRefusedWhereTheRouteIsBuilt() {
        assertThatIllegalArgumentException().isThrownBy(() -> LimiterFilterFunctions.limiter("per-caller", (request) -> "a", 0))
            .withMessageContaining("cost must be a whole number of at least 1, not 0");
    }

    private static Gateway start(TestRedis redis, String prefix, List<String> more) {
        List<String> properties = new ArrayList<>(List.of("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=" + prefix,
                "limiter.redis.timeout=2s", "limiter.redis.connect-timeout=5s",
                "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration,"
                        + "org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration",
                "spring.cloud.gateway.server.webflux.enabled=false", "test.backend=" + backend.url(),
                "limiter.limiters.per-caller.algorithm=fixed-window", "limiter.limiters.per-caller.limit=3",
                "limiter.limiters.per-caller.window=1h",
                "limiter.limiters.costly.algorithm=fixed-window", "limiter.limiters.costly.limit=6", "limiter.limiters.costly.window=1h"));
        properties.addAll(more);
        // Limiter's clock stands still at the same instant in both gateways: no hour ends while a test counts.
        return Gateway.start(WebApplicationType.SERVLET, properties, KeyFunctionRoutes.class, GatewayFeaturesTests.FrozenTime.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class KeyFunctionRoutes {

        @Bean
        RouterFunction<ServerResponse> keyedRoute(Environment environment) {
            return route("keyed").GET("/keyed/**", http())
                .before(uri(environment.getRequiredProperty("test.backend")))
                .filter(LimiterFilterFunctions.limiter("per-caller", (request) -> request.headers().firstHeader("X-Api-Key")))
                .build();
        }

        @Bean
        RouterFunction<ServerResponse> costlyRoute(Environment environment) {
            return route("costly").GET("/costly/**", http())
                .before(uri(environment.getRequiredProperty("test.backend")))
                .filter(LimiterFilterFunctions.limiter("costly", (request) -> request.headers().firstHeader("X-Api-Key"), 2))
                .build();
        }
    }
}
