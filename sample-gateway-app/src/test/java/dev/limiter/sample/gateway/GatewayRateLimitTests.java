package dev.limiter.sample.gateway;

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
 * The sample gateway as it ships (its application.yml), two instances on one real Redis in front of one
 * real backend: each route admits exactly its limit, per route or per caller, whichever instance a request
 * reaches, and the backend receives exactly those; answers carry the RateLimit and X-RateLimit-* fields; a
 * rejection is a 429 that never reaches the backend; a request without a key is answered as
 * limiter.on-missing-key says (Limiter filter) or as deny-empty-key says (RequestRateLimiter); while Redis
 * is out, the failure policy answers.
 */
@RedisTest
class GatewayRateLimitTests {

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
        }
    }

    @Test
    void eachCallerHasItsOwnLimitOnTheLimiterRouteAcrossTwoGateways(TestRedis redis) {
        List<String> properties = properties(redis);
        try (SampleGateway one = start(properties); SampleGateway two = start(properties)) {
            int served = backend.served();
            assertThat(admitted(one, two, "/orders/1", Map.of("X-User-Id", "alice"), 15)).as("alice on orders").isEqualTo(5);
            assertThat(admitted(one, two, "/orders/1", Map.of("X-User-Id", "bob"), 15)).as("bob on orders").isEqualTo(5);
            // A route's limit is its own: alice's orders take nothing from her catalog. Its bucket of 4 admits no
            // more than a token more a second measured (see catalogRefilledSince).
            long start = System.nanoTime();
            int alice = admitted(one, two, "/catalog/1", Map.of("X-User-Id", "alice"), 12);
            assertThat(alice).as("alice on catalog").isBetween(4, 4 + catalogRefilledSince(start));
            start = System.nanoTime();
            int bob = admitted(one, two, "/catalog/1", Map.of("X-User-Id", "bob"), 12);
            assertThat(bob).as("bob on catalog").isBetween(4, 4 + catalogRefilledSince(start));
            assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(10 + alice + bob);
        }
    }

    @Test
    void theLimiterRouteAnswersWithTheFieldsAndRejectsWithAProblemDetail(TestRedis redis) {
        try (SampleGateway gateway = start(properties(redis))) {
            Map<String, String> alice = Map.of("X-User-Id", "alice");
            HttpResponse<String> first = gateway.get("/orders/7", alice);
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
                assertThat(gateway.get("/orders/7", alice).statusCode()).isEqualTo(200);
            }
            int served = backend.served();
            HttpResponse<String> rejected = gateway.get("/orders/7", alice);
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(backend.served()).as("requests that reached the backend").isEqualTo(served);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("50");
            assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"orders\";r=0;t=50");
            assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=60");
            assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying((type) -> assertThat(type).contains("application/problem+json"));
            assertThat(rejected.body()).contains("\"status\":429", "\"title\":\"Too Many Requests\"", "\"limiter\":\"orders\"",
                    "\"instance\":\"/orders/7\"");
        }
    }

    @Test
    void aCallerWithoutAKeyIsAnsweredAsOnMissingKeySays(TestRedis redis) {
        List<String> skip = properties(redis);
        skip.add("limiter.on-missing-key=skip");
        try (SampleGateway gateway = start(properties(redis)); SampleGateway skipping = start(skip)) {
            int served = backend.served();
            HttpResponse<String> refused = gateway.get("/orders/7");
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains("\"limiter\":\"orders\"");
            assertThat(backend.served()).isEqualTo(served);
            // skip: unlimited, beyond the route's limit of 5.
            for (int i = 0; i < 8; i++) {
                assertThat(skipping.get("/orders/7").statusCode()).isEqualTo(200);
            }
            assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(8);
        }
    }


    @Test
    void theRequestRateLimiterRouteAnswersWithTheFieldsAndA429AndRefusesAnEmptyKey(TestRedis redis) {
        try (SampleGateway gateway = start(properties(redis))) {
            Map<String, String> carol = Map.of("X-User-Id", "carol");
            long start = System.nanoTime();
            HttpResponse<String> first = gateway.get("/catalog/shoes", carol);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("backend: /catalog/shoes");
            // One token a second, four at most (RedisRateLimiter's replenishRate 1, burstCapacity 4): a quota of 4 every 4 s.
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"catalog\";q=4;w=4");
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("3");
            assertThat(first.headers().firstValue("X-RateLimit-Replenish-Rate")).hasValue("1");
            assertThat(first.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("4");
            assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("1");
            for (int i = 0; i < 3; i++) {
                assertThat(gateway.get("/catalog/shoes", carol).statusCode()).isEqualTo(200);
            }
            // The next is a 429, unless the machine paused long enough for the bucket to be full again (see
            // catalogRefilledSince): then one comes after no more than a token more a second measured.
            int admitted = 4;
            HttpResponse<String> rejected = gateway.get("/catalog/shoes", carol);
            while (rejected.statusCode() == 200 && admitted < 4 + catalogRefilledSince(start)) {
                admitted++;
                rejected = gateway.get("/catalog/shoes", carol);
            }
            assertThat(rejected.statusCode()).as("after %d admitted", admitted).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(rejected.body()).isEmpty();
            int served = backend.served();
            // No X-User-Id, so the key resolver gives no key: RequestRateLimiter refuses it itself, as its
            // deny-empty-key (true) and empty-key-status (403) say, before asking Limiter.
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> refused = gateway.get("/catalog/shoes");
                assertThat(refused.statusCode()).isEqualTo(403);
                assertThat(refused.headers().firstValue("RateLimit")).isEmpty();
            }
            assertThat(backend.served()).as("requests that reached the backend").isEqualTo(served);
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
                Map<String, String> alice = Map.of("X-User-Id", "alice");
                assertThat(closed.get("/orders/1", alice).statusCode()).isEqualTo(200);
                assertThat(open.get("/orders/1", alice).statusCode()).isEqualTo(200);
                own.kill();
                int served = backend.served();
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> denied = closed.get("/orders/1", alice);
                    assertThat(denied.statusCode()).isEqualTo(429);
                    assertThat(denied.headers().firstValue("Retry-After")).isPresent();
                    assertThat(closed.get("/catalog/1", alice).statusCode()).isEqualTo(429);
                    assertThat(closed.get("/status").statusCode()).isEqualTo(429);
                }
                assertThat(backend.served()).as("requests that reached the backend under deny").isEqualTo(served);
                // Beyond every limit of the sample: allow lets them all through while Redis is out.
                for (int i = 0; i < 12; i++) {
                    assertThat(open.get("/orders/1", alice).statusCode()).isEqualTo(200);
                    assertThat(open.get("/catalog/1", alice).statusCode()).isEqualTo(200);
                    assertThat(open.get("/status").statusCode()).isEqualTo(200);
                }
                assertThat(backend.served() - served).as("requests that reached the backend under allow").isEqualTo(36);
            }
        }
    }

    /**
     * The most tokens route catalog's bucket (4, refilled at 1 a second) may have taken back since {@code start}
     * ({@link System#nanoTime()}): Limiter's clock stands still, but Redis expires a bucket's key in real time
     * once the bucket would be full again, a second for each token taken (the first request's key lives a
     * second, and the first request through a fresh gateway is slow). A request after such a pause finds a
     * full bucket, as it would on a moving clock: no more than a token for each second that passed.
     */
    private static int catalogRefilledSince(long start) {
        return (int) Duration.ofNanos(System.nanoTime() - start).toSeconds();
    }

    /** The properties of a test over application.yml: its Redis, and a key prefix no other test shares. */
    private static List<String> properties(TestRedis redis) {
        return new ArrayList<>(List.of("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                "limiter.key-prefix=gateway-sample-test-" + UUID.randomUUID(), "limiter.redis.connect-timeout=5s"));
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
