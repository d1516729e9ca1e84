package dev.limiter.sample.gateway.mvc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Server MVC sample gateway as it ships (its application.yml and its Java route), two instances on one
 * real Redis in front of one real backend: each route admits exactly its limit, per route or per caller,
 * whichever instance a request reaches; answers carry the RateLimit and X-RateLimit-* fields; a rejection
 * is a 429 with a problem detail that never reaches the backend; a request without a key is answered as
 * limiter.on-missing-key says; while Redis is out, the failure policy answers.
 */
@RedisTest
class GatewayMvcRateLimitTests {

    private static final Map<String, String> ALICE = Map.of("X-User-Id", "alice");

    private static final Map<String, String> BOB = Map.of("X-User-Id", "bob");

    private static SampleBackend backend;

    @BeforeAll
    static void startBackend() throws IOException {
        backend = SampleBackend.start(0);
    }

    @AfterAll
    static void stopBackend() {
        backend.close();
    }

    @Test
    void aRouteWideLimitHoldsAcrossTwoGateways(TestRedis redis) {
        List<String> properties = properties(redis);
        try (SampleGateway one = start(properties); SampleGateway two = start(properties)) {
            int served = backend.served();
            assertThat(admitted(one, two, "/status", Map.of(), 30)).as("admitted on route status").isEqualTo(10);
            assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(10);
            // Everyone shares the route's limit: another caller finds it spent.
            assertThat(one.get("/status", BOB).statusCode()).isEqualTo(429);
        }
    }

    @Test
    void eachCallerHasItsOwnLimitOnTheYamlRouteAcrossTwoGateways(TestRedis redis) {
        List<String> properties = properties(redis);
        try (SampleGateway one = start(properties); SampleGateway two = start(properties)) {
            int served = backend.served();
            assertThat(admitted(one, two, "/orders/1", ALICE, 15)).as("alice on orders").isEqualTo(5);
            assertThat(admitted(one, two, "/orders/1", BOB, 15)).as("bob on orders").isEqualTo(5);
            assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(10);
        }
    }

    @Test
    void eachCallerHasItsOwnLimitOnTheJavaRouteAcrossTwoGateways(TestRedis redis) {
        List<String> properties = properties(redis);
        try (SampleGateway one = start(properties); SampleGateway two = start(properties)) {
            int served = backend.served();
            // 6 permits a minute, 2 per report: 3 reports each.
            assertThat(admitted(one, two, "/reports/1", ALICE, 10)).as("alice on reports").isEqualTo(3);
            assertThat(admitted(one, two, "/reports/1", BOB, 10)).as("bob on reports").isEqualTo(3);
            assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(6);
            // A route's limit is its own: alice's reports take nothing from her orders.
            assertThat(admitted(one, two, "/orders/1", ALICE, 8)).as("alice on orders").isEqualTo(5);
        }
    }

    @Test
    void theYamlRouteAnswersWithTheFieldsAndRejectsWithAProblemDetail(TestRedis redis) {
        try (SampleGateway gateway = start(properties(redis))) {
            HttpResponse<String> first = gateway.get("/orders/7", ALICE);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("backend: /orders/7");
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=60");
            // The frozen clock stands 10 s into its minute: the window ends in 50 s.
            assertThat(first.headers().firstValue("RateLimit")).hasValue("\"orders\";r=4;t=50");
            // As RedisRateLimiter reports 5 a minute (replenishRate 1, burstCapacity 60, requestedTokens 12):
            // in twelfths of a permit, so that the replenish rate is a whole number, never 0.
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("48");
            assertThat(first.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("60");
            assertThat(first.headers().firstValue("X-RateLimit-Replenish-Rate")).hasValue("1");
            assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("12");
            for (int i = 0; i < 4; i++) {
                assertThat(gateway.get("/orders/7", ALICE).statusCode()).isEqualTo(200);
            }
            int served = backend.served();
            HttpResponse<String> rejected = gateway.get("/orders/7", ALICE);
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(backend.served()).as("requests that reached the backend").isEqualTo(served);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("50");
            assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"orders\";r=0;t=50");
            assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=60");
            assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(rejected.headers().firstValue("Content-Type"))
                .hasValueSatisfying((type) -> assertThat(type).contains("application/problem+json"));
            assertThat(rejected.body()).contains("\"status\":429", "\"title\":\"Too Many Requests\"", "\"limiter\":\"orders\"",
                    "\"instance\":\"/orders/7\"");
        }
    }

    @Test
    void theJavaRouteAnswersWithTheFieldsOfItsCost(TestRedis redis) {
        try (SampleGateway gateway = start(properties(redis))) {
            HttpResponse<String> first = gateway.get("/reports/2026", ALICE);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("backend: /reports/2026");
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=6;w=60");
            assertThat(first.headers().firstValue("RateLimit")).hasValue("\"reports\";r=4;t=50");
            // 6 a minute in tenths of a permit: 4 permits left are 40 tokens, a report's 2 permits 20.
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("40");
            assertThat(first.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("60");
            assertThat(first.headers().firstValue("X-RateLimit-Replenish-Rate")).hasValue("1");
            assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("20");
            assertThat(gateway.get("/reports/2026", ALICE).statusCode()).isEqualTo(200);
            assertThat(gateway.get("/reports/2026", ALICE).statusCode()).isEqualTo(200);
            HttpResponse<String> rejected = gateway.get("/reports/2026", ALICE);
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("50");
            assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(rejected.body()).contains("\"status\":429", "\"limiter\":\"reports\"");
        }
    }

    @Test
    void aRejectedCallerIsAdmittedAgainWhenRetryAfterHasPassed(TestRedis redis) {
        List<String> properties = properties(redis);
        try (SampleGateway one = start(properties); SampleGateway two = start(properties)) {
            assertThat(admitted(one, two, "/orders/1", ALICE, 6)).isEqualTo(5);
            HttpResponse<String> rejected = two.get("/orders/1", ALICE);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("50");
            // One microsecond short of Retry-After: the window has not ended yet.
            for (SampleGateway gateway : List.of(one, two)) {
                gateway.clock().advance(Duration.ofSeconds(50).minusNanos(1_000));
            }
            assertThat(one.get("/orders/1", ALICE).statusCode()).isEqualTo(429);
            for (SampleGateway gateway : List.of(one, two)) {
                gateway.clock().advance(Duration.ofNanos(1_000));
            }
            // A new window: the limit again, across both instances.
            assertThat(admitted(one, two, "/orders/1", ALICE, 8)).as("alice in the next window").isEqualTo(5);
        }
    }

    @Test
    void aCallerWithoutAKeyIsAnsweredAsOnMissingKeySays(TestRedis redis) {
        List<String> skip = properties(redis);
        skip.add("limiter.on-missing-key=skip");
        try (SampleGateway rejecting = start(properties(redis)); SampleGateway skipping = start(skip)) {
            int served = backend.served();
            for (String path : List.of("/orders/7", "/reports/7")) {
                HttpResponse<String> refused = rejecting.get(path);
                assertThat(refused.statusCode()).as("status of " + path).isEqualTo(400);
                assertThat(refused.headers().firstValue("Content-Type"))
                    .hasValueSatisfying((type) -> assertThat(type).contains("application/problem+json"));
                assertThat(refused.body()).contains("\"status\":400");
            }
            assertThat(rejecting.get("/orders/7").body()).contains("\"limiter\":\"orders\"");
            assertThat(backend.served()).as("requests that reached the backend").isEqualTo(served);
            // skip: unlimited, beyond every limit of the sample.
            for (int i = 0; i < 8; i++) {
                assertThat(skipping.get("/orders/7").statusCode()).isEqualTo(200);
                assertThat(skipping.get("/reports/7").statusCode()).isEqualTo(200);
            }
            assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(16);
        }
    }

    @Test
    void whileRedisIsOutTheFailurePolicyAnswers() {
        try (TestRedis own = TestRedis.start()) {
            List<String> deny = properties(own);
            deny.addAll(List.of("limiter.on-redis-failure=deny", "limiter.redis.timeout=200ms"));
            List<String> allow = properties(own);
            allow.addAll(List.of("limiter.on-redis-failure=allow", "limiter.redis.timeout=200ms"));
            try (SampleGateway closed = start(deny); SampleGateway open = start(allow)) {
                assertThat(closed.get("/orders/1", ALICE).statusCode()).isEqualTo(200);
                assertThat(open.get("/orders/1", ALICE).statusCode()).isEqualTo(200);
                own.kill();
                int served = backend.served();
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> denied = closed.get("/orders/1", ALICE);
                    assertThat(denied.statusCode()).isEqualTo(429);
                    assertThat(denied.headers().firstValue("Retry-After")).hasValue("1");
                    assertThat(denied.body()).contains("\"status\":429", "\"limiter\":\"orders\"");
                    assertThat(closed.get("/status").statusCode()).isEqualTo(429);
                    assertThat(closed.get("/reports/1", ALICE).statusCode()).isEqualTo(429);
                }
                assertThat(backend.served()).as("requests that reached the backend under deny").isEqualTo(served);
                // Beyond every limit of the sample: allow lets them all through while Redis is out.
                for (int i = 0; i < 12; i++) {
                    assertThat(open.get("/orders/1", ALICE).statusCode()).isEqualTo(200);
                    assertThat(open.get("/reports/1", ALICE).statusCode()).isEqualTo(200);
                    assertThat(open.get("/status").statusCode()).isEqualTo(200);
                }
                assertThat(backend.served() - served).as("requests that reached the backend under allow").isEqualTo(36);
            }
        }
    }

    /** The properties of a test over application.yml: its Redis, and a key prefix no other test shares. */
    private static List<String> properties(TestRedis redis) {
        return new ArrayList<>(List.of("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                "limiter.key-prefix=gateway-mvc-sample-test-" + UUID.randomUUID(), "limiter.redis.connect-timeout=5s"));
    }

    private static SampleGateway start(List<String> properties) {
        return SampleGateway.start(backend.uri(), properties);
    }

    /** Sends {@code count} requests, alternating between the gateways, and counts those admitted (200); the others must be 429. */
    private static int admitted(SampleGateway one, SampleGateway two, String path, Map<String, String> headers, int count) {
        int admitted = 0;
        for (int i = 0; i < count; i++) {
            int status = ((i % 2 == 0) ? one : two).get(path, headers).statusCode();
            assertThat(status).as("status of request " + i + " to " + path).isIn(200, 429);
            if (status == 200) {
                admitted++;
            }
        }
        return admitted;
    }
}
