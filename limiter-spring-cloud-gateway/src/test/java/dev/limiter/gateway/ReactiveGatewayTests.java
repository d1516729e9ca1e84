package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * The reactive gateway on a real Redis, routing to a real backend: the Limiter filter and Limiter as the
 * RateLimiter of RequestRateLimiter, one limit per route and per caller across two gateway instances.
 * Limiter's clock stands still at the same instant in every gateway, so that no window ends and no bucket
 * refills while a test counts, however slowly a loaded machine sends the requests.
 */
@RedisTest
class ReactiveGatewayTests {

    @RegisterExtension
    static final Backend backend = Backend.perClass();

    /** Routes of every kind, each to the backend, with their limiters on {@code redisUrl} under {@code keyPrefix}. */
    static List<String> properties(String redisUrl, String keyPrefix) {
        String routes = "spring.cloud.gateway.server.webflux.routes";
        return new ArrayList<>(List.of("spring.data.redis.url=" + redisUrl, "limiter.key-prefix=" + keyPrefix, "limiter.redis.timeout=2s",
                "limiter.redis.connect-timeout=5s",
                // One limit for the whole route, in the shortcut form.
                "limiter.limiters.orders.algorithm=fixed-window", "limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=1h",
                routes + "[0].id=orders", routes + "[0].uri=" + backend.url(), routes + "[0].predicates[0]=Path=/orders/**",
                routes + "[0].filters[0]=Limiter=orders",
                // One limit per caller, keyed by a header, in the long form.
                "limiter.limiters.per-caller.limit=3", "limiter.limiters.per-caller.window=1h",
                routes + "[1].id=catalog", routes + "[1].uri=" + backend.url(), routes + "[1].predicates[0]=Path=/catalog/**",
                routes + "[1].filters[0].name=Limiter", routes + "[1].filters[0].args.limiter=per-caller",
                routes + "[1].filters[0].args.key=#request.headers.getFirst('X-Api-Key')",
                // The gateway's own RequestRateLimiter and KeyResolver, deciding through Limiter (a token bucket).
                "limiter.limiters.legacy.algorithm=token-bucket", "limiter.limiters.legacy.limit=4", "limiter.limiters.legacy.window=1h",
                routes + "[2].id=legacy", routes + "[2].uri=" + backend.url(), routes + "[2].predicates[0]=Path=/legacy/**",
                routes + "[2].filters[0].name=RequestRateLimiter", routes + "[2].filters[0].args.rate-limiter=#{@limiter}",
                routes + "[2].filters[0].args.key-resolver=#{@apiKeyResolver}",
                // The same, naming its limiter and cost in the filter's arguments.
                routes + "[3].id=named", routes + "[3].uri=" + backend.url(), routes + "[3].predicates[0]=Path=/named/**",
                routes + "[3].filters[0].name=RequestRateLimiter", routes + "[3].filters[0].args.rate-limiter=#{@limiter}",
                routes + "[3].filters[0].args.key-resolver=#{@apiKeyResolver}", routes + "[3].filters[0].args.limiter.name=legacy",
                routes + "[3].filters[0].args.limiter.cost=2",
                // One limit per caller, keyed by indexing the headers (HttpHeaders is no Map since Spring Framework 7).
                routes + "[4].id=indexed", routes + "[4].uri=" + backend.url(), routes + "[4].predicates[0]=Path=/indexed/**",
                routes + "[4].filters[0].name=Limiter", routes + "[4].filters[0].args.limiter=per-caller",
                routes + "[4].filters[0].args.key=#request.headers['X-Api-Key']"));
    }

    static String uniquePrefix() {
        return "limiter-gateway-test-" + UUID.randomUUID();
    }

    @Test
    void theLimiterFilterAdmitsExactlyTheRouteLimitAcrossTwoGateways(TestRedis redis) {
        String prefix = uniquePrefix();
        try (Gateway one = start(redis.url(), prefix); Gateway two = start(redis.url(), prefix)) {
            int admitted = admittedAlternating(one, two, "/orders/1", Map.of(), 20);
            LimitCheck.assertExact("route orders", admitted, 5);
        }
    }

    @Test
    void theCheckFailsWhenEachGatewayCountsAlone(TestRedis redis) {
        String prefix = uniquePrefix();
        List<String> memory = List.of("limiter.backend=memory");
        try (Gateway one = start(redis.url(), prefix, memory); Gateway two = start(redis.url(), prefix, memory)) {
            int admitted = admittedAlternating(one, two, "/orders/1", Map.of(), 20);
            assertThat(admitted).isEqualTo(10);
            assertThatThrownBy(() -> LimitCheck.assertExact("route orders", admitted, 5)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("admitted 10 requests");
        }
    }

    @Test
    void eachCallerHasItsOwnLimitAcrossTwoGateways(TestRedis redis) {
        String prefix = uniquePrefix();
        try (Gateway one = start(redis.url(), prefix); Gateway two = start(redis.url(), prefix)) {
            LimitCheck.assertExact("caller a", admittedAlternating(one, two, "/catalog/x", Map.of("X-Api-Key", "a"), 10), 3);
            LimitCheck.assertExact("caller b", admittedAlternating(one, two, "/catalog/x", Map.of("X-Api-Key", "b"), 10), 3);
        }
    }

    @Test
    void aKeyIndexingTheHeadersByNameLimitsEachCallerApart(TestRedis redis) {
        String prefix = uniquePrefix();
        try (Gateway one = start(redis.url(), prefix); Gateway two = start(redis.url(), prefix)) {
            LimitCheck.assertExact("caller a", admittedAlternating(one, two, "/indexed/x", Map.of("X-Api-Key", "a"), 10), 3);
            LimitCheck.assertExact("caller b", admittedAlternating(one, two, "/indexed/x", Map.of("X-Api-Key", "b"), 10), 3);
        }
    }

    @Test
    void requestRateLimiterDecidesThroughLimiterPerKeyResolverKeyAcrossTwoGateways(TestRedis redis) {
        String prefix = uniquePrefix();
        try (Gateway one = start(redis.url(), prefix); Gateway two = start(redis.url(), prefix)) {
            LimitCheck.assertExact("caller a", admittedAlternating(one, two, "/legacy/x", Map.of("X-Api-Key", "a"), 12), 4);
            LimitCheck.assertExact("caller b", admittedAlternating(one, two, "/legacy/x", Map.of("X-Api-Key", "b"), 12), 4);
        }
    }

    @Test
    void answersCarryTheRateLimitFieldsAndARejectionIsA429WithAProblemDetail(TestRedis redis) {
        try (Gateway gateway = start(redis.url(), uniquePrefix())) {
            HttpResponse<String> first = gateway.get("/orders/1");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("ok");
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=3600");
            assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying((value) -> assertThat(value).startsWith("\"orders\";r=4;t="));
            // In RedisRateLimiter's terms, 5 an hour counts 720 tokens a permit (a replenish rate of 1 a second).
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("2880");
            assertThat(first.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("3600");
            assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("720");
            for (int i = 0; i < 4; i++) {
                assertThat(gateway.get("/orders/1").statusCode()).isEqualTo(200);
            }
            int served = backend.served();
            HttpResponse<String> rejected = gateway.get("/orders/1");
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(backend.served()).as("requests reaching the backend").isEqualTo(served);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying((seconds) -> assertThat(Long.parseLong(seconds))
                .isBetween(1L, 3600L));
            assertThat(rejected.headers().firstValue("RateLimit")).hasValueSatisfying((value) -> assertThat(value).startsWith("\"orders\";r=0;t="));
            assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying((type) -> assertThat(type).contains("problem+json"));
            assertThat(rejected.body()).contains("\"status\":429", "\"limiter\":\"orders\"", "\"title\":\"Too Many Requests\"");
        }
    }

    @Test
    void requestRateLimiterTakesItsLimiterAndCostFromTheFilterArguments(TestRedis redis) {
        try (Gateway gateway = start(redis.url(), uniquePrefix())) {
            HttpResponse<String> first = gateway.get("/named/x", Map.of("X-Api-Key", "a"));
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"legacy\";q=4;w=3600");
            // 4 an hour counts 900 tokens a permit.
            assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("1800");
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("1800");
            assertThat(gateway.get("/named/x", Map.of("X-Api-Key", "a")).statusCode()).isEqualTo(200);
            assertThat(gateway.get("/named/x", Map.of("X-Api-Key", "a")).statusCode()).isEqualTo(429);
            // The route's limiter is legacy's, key for key: a shares it with route legacy.
            assertThat(gateway.get("/legacy/x", Map.of("X-Api-Key", "a")).statusCode()).isEqualTo(429);
        }
    }

    @Test
    void requestRateLimiterAnswersCarryTheFieldsAndRetryAfter(TestRedis redis) {
        try (Gateway gateway = start(redis.url(), uniquePrefix())) {
            HttpResponse<String> first = gateway.get("/legacy/x", Map.of("X-Api-Key", "a"));
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"legacy\";q=4;w=3600");
            // 4 an hour counts 900 tokens a permit.
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("2700");
            assertThat(first.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("3600");
            for (int i = 0; i < 3; i++) {
                gateway.get("/legacy/x", Map.of("X-Api-Key", "a"));
            }
            HttpResponse<String> rejected = gateway.get("/legacy/x", Map.of("X-Api-Key", "a"));
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
            // Limiter's clock stands still: the bucket has taken back no token (1/900 of a permit) since it was drained.
            assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        }
    }

    @Test
    void theRedisRateLimiterFieldsCanBeTurnedOff(TestRedis redis) {
        try (Gateway gateway = start(redis.url(), uniquePrefix(), List.of("limiter.gateway.redis-rate-limiter-headers=false"))) {
            HttpResponse<String> first = gateway.get("/orders/1");
            assertThat(first.headers().firstValue("RateLimit")).isPresent();
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        }
    }

    @Test
    void aMissingKeyFollowsOnMissingKey(TestRedis redis) {
        try (Gateway reject = start(redis.url(), uniquePrefix(), List.of("limiter.on-missing-key=reject"));
                Gateway skip = start(redis.url(), uniquePrefix(), List.of("limiter.on-missing-key=skip"))) {
            HttpResponse<String> rejected = reject.get("/catalog/x");
            assertThat(rejected.statusCode()).isEqualTo(400);
            assertThat(rejected.body()).contains("\"limiter\":\"per-caller\"");
            for (int i = 0; i < 5; i++) {
                assertThat(skip.get("/catalog/x").statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void whileRedisIsOutTheFailurePolicyAnswers() {
        try (TestRedis own = TestRedis.start()) {
            List<String> deny = List.of("limiter.on-redis-failure=deny", "limiter.redis.timeout=200ms");
            List<String> allow = List.of("limiter.on-redis-failure=allow", "limiter.redis.timeout=200ms");
            try (Gateway closed = start(own.url(), uniquePrefix(), deny); Gateway open = start(own.url(), uniquePrefix(), allow)) {
                assertThat(closed.get("/orders/1").statusCode()).isEqualTo(200);
                own.kill();
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> denied = closed.get("/orders/1");
                    assertThat(denied.statusCode()).isEqualTo(429);
                    assertThat(denied.headers().firstValue("Retry-After")).hasValue("1");
                    assertThat(closed.get("/legacy/x", Map.of("X-Api-Key", "a")).statusCode()).isEqualTo(429);
                }
                for (int i = 0; i < 8; i++) {
                    assertThat(open.get("/orders/1").statusCode()).isEqualTo(200);
                    assertThat(open.get("/legacy/x", Map.of("X-Api-Key", "a")).statusCode()).isEqualTo(200);
                }
            }
        }
    }

    @Test
    void aLimiterFilterPicksThePlanOfEachRequestAcrossTwoGateways(TestRedis redis) {
        String prefix = uniquePrefix();
        String routes = "spring.cloud.gateway.server.webflux.routes";
        List<String> plans = List.of("limiter.limiters.tiered.plan=#request.headers['X-Plan']", "limiter.limiters.tiered.default-plan=free",
                "limiter.limiters.tiered.plans.free.limit=2", "limiter.limiters.tiered.plans.free.window=1h",
                "limiter.limiters.tiered.plans.pro.limit=4", "limiter.limiters.tiered.plans.pro.window=1h",
                routes + "[5].id=tiers", routes + "[5].uri=" + backend.url(), routes + "[5].predicates[0]=Path=/tiers/**",
                routes + "[5].filters[0].name=Limiter", routes + "[5].filters[0].args.limiter=tiered",
                routes + "[5].filters[0].args.key=#request.headers['X-Api-Key']");
        try (Gateway one = start(redis.url(), prefix, plans); Gateway two = start(redis.url(), prefix, plans)) {
            LimitCheck.assertExact("caller a, default plan free", admittedAlternating(one, two, "/tiers/x", Map.of("X-Api-Key", "a"), 8), 2);
            LimitCheck.assertExact("caller a, plan pro", admittedAlternating(one, two, "/tiers/x", Map.of("X-Api-Key", "a", "X-Plan", "pro"), 8),
                    4);
            HttpResponse<String> pro = one.get("/tiers/x", Map.of("X-Api-Key", "b", "X-Plan", "pro"));
            assertThat(pro.headers().firstValue("RateLimit-Policy")).hasValue("\"tiered\";q=4;w=3600");
        }
    }

    @Test
    void requestRateLimiterRefusesALimiterWithPlansWhichItCannotPickPerRequest(TestRedis redis) {
        List<String> plans = List.of("limiter.limiters.tiered.plan=#request.headers['X-Plan']", "limiter.limiters.tiered.default-plan=free",
                "limiter.limiters.tiered.plans.free.limit=2", "limiter.limiters.tiered.plans.free.window=1h",
                "limiter.limiters.tiered.plans.pro.limit=4", "limiter.limiters.tiered.plans.pro.window=1h");
        try (Gateway gateway = start(redis.url(), uniquePrefix(), plans)) {
            LimiterRateLimiter limiter = gateway.context().getBean("limiter", LimiterRateLimiter.class);
            limiter.getConfig().put("tiers", new LimiterRateLimiter.Config().setName("tiered"));
            assertThatThrownBy(() -> limiter.isAllowed("tiers", "a").block()).isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("RequestRateLimiter of route 'tiers'")
                .hasMessageContaining("has plans [free, pro]");
        }
    }

    private static Gateway start(String redisUrl, String prefix) {
        return start(redisUrl, prefix, List.of());
    }

    private static Gateway start(String redisUrl, String prefix, List<String> more) {
        List<String> properties = properties(redisUrl, prefix);
        properties.addAll(more);
        return Gateway.start(WebApplicationType.REACTIVE, properties, KeyResolvers.class, GatewayFeaturesTests.FrozenTime.class);
    }

    /** Sends {@code count} requests, alternating between the gateways, and counts those admitted (200). */
    static int admittedAlternating(Gateway one, Gateway two, String path, Map<String, String> headers, int count) {
        int admitted = 0;
        for (int i = 0; i < count; i++) {
            int status = ((i % 2 == 0) ? one : two).get(path, headers).statusCode();
            assertThat(status).as("status of request " + i).isIn(200, 429);
            if (status == 200) {
                admitted++;
            }
        }
        return admitted;
    }

    @Configuration(proxyBeanMethods = false)
    static class KeyResolvers {

        @Bean
        KeyResolver apiKeyResolver() {
            return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
        }
    }
}
