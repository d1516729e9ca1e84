package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What docs/gateway.md says gateway routes share with {@code @RateLimited}, checked on a running gateway
 * of each flavour (a subclass per flavour) on a real Redis, routing to a real backend: shadow mode, several
 * limits, the deny cache, metrics, the actuator endpoint and the default failure policy while Redis is out.
 * One gateway serves every test of a class, each test with limiters of its own; Limiter's clock stands
 * still, so no window ends while a test counts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class GatewayFeaturesTests {

    /** Limiter's frozen clock: 10 s into a minute. */
    static final long FROZEN_AT = 1_800_000_010_000_000L;

    Backend backend;

    Gateway gateway;

    /** The property prefix of the flavour's YAML routes, such as {@code spring.cloud.gateway.server.webflux.routes}. */
    abstract String routesProperty();

    /** The flavour's SpEL reading request header {@code name}. */
    abstract String header(String name);

    /** Starts a gateway of the flavour with {@code properties}. */
    abstract Gateway start(List<String> properties);

    @BeforeAll
    void startGateway() {
        backend = Backend.start();
        gateway = start(sharedProperties(TestRedis.shared().url()));
    }

    @AfterAll
    void stopGateway() {
        if (gateway != null) {
            gateway.close();
        }
        backend.close();
    }

    /** Redis, a key prefix of the test's own, the frozen clock's limiters and the routes every test of the class uses. */
    List<String> sharedProperties(String redisUrl) {
        List<String> properties = base(redisUrl);
        properties.addAll(List.of("management.endpoints.web.exposure.include=limiters",
                "limiter.limiters.shadowed.algorithm=fixed-window", "limiter.limiters.shadowed.limit=2",
                "limiter.limiters.shadowed.window=1h", "limiter.limiters.shadowed.shadow=true",
                "limiter.limiters.multi.algorithm=fixed-window", "limiter.limiters.multi.limits[0].limit=3",
                "limiter.limiters.multi.limits[0].window=1m", "limiter.limiters.multi.limits[1].limit=5",
                "limiter.limiters.multi.limits[1].window=1h",
                "limiter.limiters.metered.algorithm=sliding-log", "limiter.limiters.metered.limit=2", "limiter.limiters.metered.window=1h"));
        properties.addAll(route(0, "shadow", "shadowed", header("X-Api-Key"), null));
        properties.addAll(route(1, "multi", "multi", header("X-Api-Key"), null));
        properties.addAll(route(2, "metered", "metered", header("X-Api-Key"), null));
        return properties;
    }

    List<String> base(String redisUrl) {
        return new ArrayList<>(List.of("spring.data.redis.url=" + redisUrl, "limiter.key-prefix=" + ReactiveGatewayTests.uniquePrefix(),
                "limiter.redis.timeout=2s", "limiter.redis.connect-timeout=5s"));
    }

    /** Route {@code index}: {@code /<path>/**} to the backend with a Limiter filter. */
    List<String> route(int index, String path, String limiter, String key, String cost) {
        String route = routesProperty() + "[" + index + "]";
        List<String> properties = new ArrayList<>(List.of(route + ".id=" + path, route + ".uri=" + backend.url(),
                route + ".predicates[0]=Path=/" + path + "/**", route + ".filters[0].name=Limiter", route + ".filters[0].args.limiter=" + limiter,
                route + ".filters[0].args.key=" + key));
        if (cost != null) {
            properties.add(route + ".filters[0].args.cost=" + cost);
        }
        return properties;
    }

    @Test
    void aShadowRouteLetsRequestsOverItsLimitThroughAndCountsThemAsShadowRejected() {
        int served = backend.served();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = gateway.get("/shadow/x", Map.of("X-Api-Key", "a"));
            assertThat(response.statusCode()).as("status of request " + i).isEqualTo(200);
            // A shadow limiter only observes: it tells the client nothing.
            assertThat(response.headers().firstValue("RateLimit")).isEmpty();
            assertThat(response.headers().firstValue("Retry-After")).isEmpty();
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        }
        assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(5);
        assertThat(decisions("shadowed", "allowed", "redis")).isEqualTo(2);
        assertThat(decisions("shadowed", "shadow_rejected", "redis")).isEqualTo(3);
        assertThat(decisions("shadowed", "rejected", "redis")).isZero();
    }

    @Test
    void withSeveralLimitsTheViolatedOneRejectsAndTheOneWithFewestPermitsLeftIsReported() {
        VirtualClock clock = gateway.context().getBean(VirtualClock.class);
        Map<String, String> caller = Map.of("X-Api-Key", "a");
        HttpResponse<String> first = gateway.get("/multi/x", caller);
        assertThat(first.statusCode()).isEqualTo(200);
        // Each limit is named after its window.
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"multi-1m\";q=3;w=60, \"multi-1h\";q=5;w=3600");
        // 2 of 3 left this minute, 4 of 5 this hour: the minute's limit is reported, ending in 50 s.
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"multi-1m\";r=2;t=50");
        // The X-RateLimit-* fields count as RedisRateLimiter would for 3 a minute: a token a second, 20 a permit.
        assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("40");
        assertThat(first.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("60");
        assertThat(gateway.get("/multi/x", caller).statusCode()).isEqualTo(200);
        assertThat(gateway.get("/multi/x", caller).statusCode()).isEqualTo(200);
        HttpResponse<String> perMinute = gateway.get("/multi/x", caller);
        assertThat(perMinute.statusCode()).isEqualTo(429);
        assertThat(perMinute.headers().firstValue("Retry-After")).hasValue("50");
        assertThat(perMinute.headers().firstValue("RateLimit")).hasValue("\"multi-1m\";r=0;t=50");
        assertThat(perMinute.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("60");
        assertThat(perMinute.body()).contains("\"limiter\":\"multi\"");
        // The next minute: the minute's limit is whole again, the hour's has 2 left and is reported.
        clock.advance(Duration.ofSeconds(50));
        HttpResponse<String> nextMinute = gateway.get("/multi/x", caller);
        assertThat(nextMinute.statusCode()).isEqualTo(200);
        assertThat(nextMinute.headers().firstValue("RateLimit")).hasValue("\"multi-1h\";r=1;t=3540");
        // For 5 an hour: a token a second, 720 a permit.
        assertThat(nextMinute.headers().firstValue("X-RateLimit-Remaining")).hasValue("720");
        assertThat(nextMinute.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("3600");
        assertThat(gateway.get("/multi/x", caller).statusCode()).isEqualTo(200);
        HttpResponse<String> perHour = gateway.get("/multi/x", caller);
        assertThat(perHour.statusCode()).isEqualTo(429);
        assertThat(perHour.headers().firstValue("Retry-After")).hasValue("3540");
        assertThat(perHour.headers().firstValue("RateLimit")).hasValue("\"multi-1h\";r=0;t=3540");
        assertThat(perHour.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("3600");
    }

    @Test
    void decisionsAreCountedInTheMetricsByLimiterOutcomeAndBackend() {
        int served = backend.served();
        for (int i = 0; i < 3; i++) {
            gateway.get("/metered/x", Map.of("X-Api-Key", "a"));
        }
        assertThat(backend.served() - served).isEqualTo(2);
        Counter allowed = meters().find("limiter.decisions")
            .tags("limiter", "metered", "algorithm", "sliding-log", "outcome", "allowed", "backend", "redis")
            .counter();
        assertThat(allowed).isNotNull();
        assertThat(allowed.count()).isEqualTo(2);
        assertThat(decisions("metered", "rejected", "redis")).isEqualTo(1);
    }

    @Test
    void theLimitersEndpointShowsTheLimitersAndTheRoutesUsingThem() {
        HttpResponse<String> limiters = gateway.get("/actuator/limiters");
        assertThat(limiters.statusCode()).isEqualTo(200);
        String body = limiters.body();
        assertThat(JsonPath.<List<String>>read(body, "$.limiters.shadowed.usedBy")).containsExactly(routesProperty() + "[0] (route shadow)");
        assertThat(JsonPath.<Boolean>read(body, "$.limiters.shadowed.shadow")).isTrue();
        assertThat(JsonPath.<List<String>>read(body, "$.limiters.multi.usedBy")).containsExactly(routesProperty() + "[1] (route multi)");
        assertThat(JsonPath.<List<Object>>read(body, "$.limiters.multi.limits")).hasSize(2);
        assertThat(JsonPath.<List<String>>read(body, "$.limiters.metered.usedBy")).containsExactly(routesProperty() + "[2] (route metered)");
        assertThat(JsonPath.<String>read(body, "$.limiters.metered.algorithm")).isEqualTo("sliding-log");
    }

    /**
     * On a Redis of its own, killed halfway: a key the deny cache remembers stays rejected without Redis,
     * though its limiter's policy would let it through; and the default policy, local, admits this
     * instance's share of what Redis last said of a key, no more. Runs last: closing a reactive gateway
     * disposes Reactor Netty's global resources, on which the class's gateway serves too.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void whileRedisIsOutTheDenyCacheAndTheLocalPolicyAnswer() {
        try (TestRedis own = TestRedis.start()) {
            List<String> properties = base(own.url());
            properties.addAll(List.of("limiter.redis.timeout=200ms", "limiter.local-deny-cache.enabled=true",
                    "limiter.limiters.flood.algorithm=fixed-window", "limiter.limiters.flood.limit=2", "limiter.limiters.flood.window=1h",
                    "limiter.limiters.flood.on-redis-failure=allow",
                    "limiter.limiters.shared-out.algorithm=fixed-window", "limiter.limiters.shared-out.limit=5",
                    "limiter.limiters.shared-out.window=1h"));
            properties.addAll(route(0, "flood", "flood", header("X-Api-Key"), null));
            properties.addAll(route(1, "local", "shared-out", header("X-Api-Key"), null));
            try (Gateway out = start(properties)) {
                Map<String, String> a = Map.of("X-Api-Key", "a");
                assertThat(out.get("/flood/x", a).statusCode()).isEqualTo(200);
                assertThat(out.get("/flood/x", a).statusCode()).isEqualTo(200);
                assertThat(out.get("/flood/x", a).statusCode()).as("rejected by Redis, and remembered").isEqualTo(429);
                assertThat(out.get("/local/x", a).statusCode()).isEqualTo(200);
                assertThat(out.get("/local/x", a).statusCode()).isEqualTo(200);
                own.kill();
                awaitOutage(out, "/local/x");
                int served = backend.served();
                for (int i = 0; i < 4; i++) {
                    HttpResponse<String> remembered = out.get("/flood/x", a);
                    assertThat(remembered.statusCode()).as("remembered rejection " + i).isEqualTo(429);
                    // The window ends in 3590 s of Limiter's frozen clock; the cache counts that down as real time passes.
                    assertThat(remembered.headers().firstValue("Retry-After")).hasValueSatisfying((seconds) -> assertThat(Long.parseLong(seconds))
                        .isBetween(3500L, 3590L));
                }
                assertThat(backend.served()).as("requests that reached the backend").isEqualTo(served);
                assertThat(decisions(out, "flood", "rejected", "local-deny-cache")).isEqualTo(4);
                // Redis is out indeed: a key the cache does not remember gets the policy's answer, allow.
                assertThat(out.get("/flood/x", Map.of("X-Api-Key", "b")).statusCode()).isEqualTo(200);
                assertThat(decisions(out, "flood", "allowed", "failure-policy")).isEqualTo(1);
                // Local: Redis said 3 of 5 are left, and this instance is alone.
                double localBefore = decisions(out, "shared-out", "allowed", "local-fallback");
                int admitted = 0;
                for (int i = 0; i < 8; i++) {
                    int status = out.get("/local/x", a).statusCode();
                    assertThat(status).isIn(200, 429);
                    admitted += (status == 200) ? 1 : 0;
                }
                assertThat(admitted).as("admitted under the local policy").isEqualTo(3);
                assertThat(decisions(out, "shared-out", "allowed", "local-fallback") - localBefore).isEqualTo(3);
            }
        }
    }

    /**
     * Sends requests to {@code path} for a caller of no test's own until the gateway finds Redis out (a
     * failed call is the evidence it looks for; one may fail alone first), at most 10 s: from then on its
     * limiters follow their failure policy.
     */
    static void awaitOutage(Gateway gateway, String path) {
        Gauge active = gateway.context().getBean(MeterRegistry.class).find("limiter.failure.policy.active").gauge();
        assertThat(active).isNotNull();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (active.value() != 1 && System.nanoTime() < deadline) {
            gateway.get(path, Map.of("X-Api-Key", "outage-evidence"));
        }
        assertThat(active.value()).as("limiter.failure.policy.active").isEqualTo(1);
    }

    MeterRegistry meters() {
        return gateway.context().getBean(MeterRegistry.class);
    }

    double decisions(String limiter, String outcome, String backend) {
        return decisions(gateway, limiter, outcome, backend);
    }

    static double decisions(Gateway gateway, String limiter, String outcome, String backend) {
        Counter counter = gateway.context().getBean(MeterRegistry.class).find("limiter.decisions")
            .tags("limiter", limiter, "outcome", outcome, "backend", backend)
            .counter();
        return (counter != null) ? counter.count() : 0;
    }

    /** Limiter's clock stands still at {@link #FROZEN_AT} until a test moves it. */
    @Configuration(proxyBeanMethods = false)
    static class FrozenTime {

        @Bean
        VirtualClock limiterClock() {
            return new VirtualClock(FROZEN_AT);
        }
    }
}
