package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour users rely on, run for every algorithm on every backend with the same virtual clock:
 * the Redis scripts and the in-memory twins must be indistinguishable from the outside.
 */
@RedisTest
class AlgorithmBehaviourTests {

    static final Duration WINDOW = Duration.ofSeconds(10);

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, WINDOW);

    /** Start 3.25 s into an epoch-aligned 10 s window, so the window ends 6.75 s after the start. */
    static final long OFFSET_MICROS = 3_250_000;

    static final Duration TO_WINDOW_END = micros(10_000_000 - OFFSET_MICROS);

    /** The start's sub-window [3 s, 4 s) (10 sub-windows of 1 s) leaves the window at 13 s: 9.75 s after the start. */
    static final Duration TO_SUB_WINDOW_LEAVING = micros(13_000_000 - OFFSET_MICROS);

    final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + OFFSET_MICROS);

    final String prefix = TestRedisSupport.uniquePrefix();

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Backend backend : Backend.values()) {
            for (Algorithm algorithm : Algorithm.values()) {
                cases.add(Arguments.of(backend, algorithm));
            }
        }
        return cases.stream();
    }

    static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    /**
     * With {@link #FIVE_PER_10S} and permits taken only at the start: how long until the first of
     * them is back (docs/algorithms.md), which is the retry-after of a request short of one permit.
     */
    static Duration untilFirstPermitIsBack(Algorithm algorithm) {
        return switch (algorithm) {
            // The window ends.
            case FIXED_WINDOW -> TO_WINDOW_END;
            // Counts leave with their sub-window: (j + N)·S − t.
            case SLIDING_WINDOW -> TO_SUB_WINDOW_LEAVING;
            // The oldest entry leaves W after it was logged.
            case SLIDING_LOG -> WINDOW;
            // One permit comes back every W / L = 2 s.
            case TOKEN_BUCKET, LEAKY_BUCKET, GCRA -> Duration.ofSeconds(2);
        };
    }

    /** With {@link #FIVE_PER_10S} and all 5 permits taken at the start: how long until the limit is whole again. */
    static Duration untilWholeAgain(Algorithm algorithm) {
        return switch (algorithm) {
            case FIXED_WINDOW -> TO_WINDOW_END;
            case SLIDING_WINDOW -> TO_SUB_WINDOW_LEAVING;
            case SLIDING_LOG -> WINDOW;
            // 5 permits at one every 2 s.
            case TOKEN_BUCKET, LEAKY_BUCKET, GCRA -> WINDOW;
        };
    }

    RateLimiter limiter(Backend backend, Algorithm algorithm, LimitSpec spec) {
        return limiter(backend, "orders", algorithm, spec);
    }

    RateLimiter limiter(Backend backend, String name, Algorithm algorithm, LimitSpec spec) {
        return backend.factory(clock, prefix).create(name, algorithm, spec);
    }

    // 1. limit reached exactly

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void limitIsReachedExactlyAndRejectedCallsTakeNothing(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            Decision d = limiter.tryAcquire("user-1");
            assertThat(d.allowed()).as("call %d", i + 1).isTrue();
            assertThat(d.limit()).isEqualTo(5);
            assertThat(d.remaining()).as("remaining after call %d", i + 1).isEqualTo(4 - i);
            assertThat(d.retryAfter()).isZero();
        }
        Duration expectedRetry = untilFirstPermitIsBack(algorithm);
        Decision sixth = limiter.tryAcquire("user-1");
        assertThat(sixth.allowed()).isFalse();
        assertThat(sixth.neverAllowed()).isFalse();
        assertThat(sixth.remaining()).isZero();
        assertThat(sixth.retryAfter()).isEqualTo(expectedRetry);
        assertThat(sixth.resetAfter()).isEqualTo(untilWholeAgain(algorithm));

        // Rejected calls take nothing: more of them at the same instant get the very same answer...
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("user-1")).isEqualTo(sixth);
        }
        // ...and as time passes the retry-after shrinks by exactly that time instead of being pushed out.
        clock.advance(Duration.ofSeconds(1));
        Decision later = limiter.tryAcquire("user-1");
        assertThat(later.allowed()).isFalse();
        assertThat(later.retryAfter()).isEqualTo(expectedRetry.minusSeconds(1));
    }

    // 2. window rollover / refill by explicit time

    @ParameterizedTest
    @EnumSource(Backend.class)
    void fixedWindowIsAlignedToTheEpochAndRollsOverAtItsBoundary(Backend backend) {
        RateLimiter limiter = limiter(backend, Algorithm.FIXED_WINDOW, FIVE_PER_10S);
        Decision first = limiter.tryAcquire("k");
        // Started 3.25 s into an epoch-aligned window: it resets 6.75 s later, not 10 s after the first call.
        assertThat(first.resetAfter()).isEqualTo(TO_WINDOW_END);
        for (int i = 0; i < 4; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        }
        clock.advance(TO_WINDOW_END.minus(micros(1)));
        Decision lastMicro = limiter.tryAcquire("k");
        assertThat(lastMicro.allowed()).as("one microsecond before the boundary").isFalse();
        assertThat(lastMicro.retryAfter()).isEqualTo(micros(1));
        assertThat(lastMicro.resetAfter()).isEqualTo(micros(1));

        clock.advanceMicros(1);
        Decision next = limiter.tryAcquire("k");
        assertThat(next.allowed()).as("at the boundary").isTrue();
        assertThat(next.remaining()).isEqualTo(4);
        assertThat(next.resetAfter()).isEqualTo(WINDOW);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void fixedWindowIgnoresBurst(Backend backend) {
        RateLimiter limiter = limiter(backend, Algorithm.FIXED_WINDOW, FIVE_PER_10S.withBurst(8));
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        }
        Decision sixth = limiter.tryAcquire("k");
        assertThat(sixth.allowed()).isFalse();
        assertThat(sixth.limit()).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void tokenBucketPassesAfterExactlyTheRetryAfter(Backend backend) {
        RateLimiter limiter = limiter(backend, Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        }
        Duration retryAfter = limiter.tryAcquire("k").retryAfter();
        assertThat(retryAfter).isEqualTo(Duration.ofSeconds(2));

        clock.advance(retryAfter.minus(micros(1)));
        Decision early = limiter.tryAcquire("k");
        assertThat(early.allowed()).as("one microsecond early").isFalse();
        assertThat(early.remaining()).isZero();

        clock.advanceMicros(1);
        Decision onTime = limiter.tryAcquire("k");
        assertThat(onTime.allowed()).as("exactly at retry-after").isTrue();
        assertThat(onTime.remaining()).isZero();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void tokenBucketRefillStopsAtBurst(Backend backend) {
        RateLimiter limiter = limiter(backend, Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        limiter.tryAcquire("k", 5);
        clock.advance(Duration.ofHours(1)); // would be 1800 tokens without the cap
        Decision first = limiter.tryAcquire("k");
        assertThat(first.remaining()).isEqualTo(4);
        int allowed = first.allowed() ? 1 : 0;
        for (int i = 0; i < 5; i++) {
            allowed += limiter.tryAcquire("k").allowed() ? 1 : 0;
        }
        assertThat(allowed).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void tokenBucketWithBurstAboveLimit(Backend backend) {
        LimitSpec spec = FIVE_PER_10S.withBurst(8);
        RateLimiter limiter = limiter(backend, Algorithm.TOKEN_BUCKET, spec);
        for (int i = 0; i < 8; i++) {
            Decision d = limiter.tryAcquire("k");
            assertThat(d.allowed()).as("call %d", i + 1).isTrue();
            assertThat(d.limit()).isEqualTo(8);
            assertThat(d.remaining()).isEqualTo(7 - i);
        }
        Decision ninth = limiter.tryAcquire("k");
        assertThat(ninth.allowed()).isFalse();
        // The rate stays limit/window (one token per 2 s) whatever the burst; refilling 8 takes 16 s.
        assertThat(ninth.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(ninth.resetAfter()).isEqualTo(Duration.ofSeconds(16));

        clock.advance(WINDOW); // 5 tokens back
        int allowed = 0;
        for (int i = 0; i < 8; i++) {
            allowed += limiter.tryAcquire("k").allowed() ? 1 : 0;
        }
        assertThat(allowed).isEqualTo(5);

        clock.advance(Duration.ofMinutes(5)); // full again, but no more than 8
        allowed = 0;
        for (int i = 0; i < 10; i++) {
            allowed += limiter.tryAcquire("k").allowed() ? 1 : 0;
        }
        assertThat(allowed).isEqualTo(8);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void tokenBucketRefillsNothingWhenTheClockGoesBackwards(Backend backend) {
        RateLimiter limiter = limiter(backend, Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 5).allowed()).isTrue();
        // Going back must neither refill (negative elapsed) nor drain the bucket further.
        clock.advance(Duration.ofSeconds(-5));
        Decision back = limiter.tryAcquire("k");
        assertThat(back.allowed()).isFalse();
        assertThat(back.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        // Refill counts from the latest time seen, so 2 s after it one token is there again.
        clock.advance(Duration.ofSeconds(7));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    }

    // 3. cost > 1

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void costTakesSeveralPermitsAllOrNothing(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        Decision first = limiter.tryAcquire("k", 3);
        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).isEqualTo(2);

        Decision second = limiter.tryAcquire("k", 3);
        assertThat(second.allowed()).isFalse();
        assertThat(second.neverAllowed()).isFalse();
        assertThat(second.remaining()).as("a rejected cost takes nothing").isEqualTo(2);
        // One permit short: buckets wait for one token (2 s); window algorithms for the first 3 to leave.
        assertThat(second.retryAfter()).isEqualTo(untilFirstPermitIsBack(algorithm));

        Decision third = limiter.tryAcquire("k", 2);
        assertThat(third.allowed()).isTrue();
        assertThat(third.remaining()).isZero();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void costAboveCapacityIsNeverAllowedAndTakesNothing(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        Decision tooMuch = limiter.tryAcquire("k", 6);
        assertThat(tooMuch.allowed()).isFalse();
        assertThat(tooMuch.neverAllowed()).isTrue();
        assertThat(tooMuch.retryAfter()).isEqualTo(Decision.NEVER);
        assertThat(tooMuch.remaining()).isEqualTo(5);
        assertThat(limiter.tryAcquire("k", Long.MAX_VALUE).neverAllowed()).isTrue();

        Decision all = limiter.tryAcquire("k", 5);
        assertThat(all.allowed()).as("the whole capacity is still there").isTrue();
        assertThat(all.remaining()).isZero();
        // Even with nothing left, too much stays "never", not "later".
        assertThat(limiter.tryAcquire("k", 6).neverAllowed()).isTrue();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void permitsBelowOneAreRejectedAsIllegal(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        assertThatThrownBy(() -> limiter.tryAcquire("k", 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("permits");
        assertThatThrownBy(() -> limiter.tryAcquire("k", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiter.tryAcquire("k", Long.MIN_VALUE)).isInstanceOf(IllegalArgumentException.class);
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
    }

    // 4. keys expire

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void redisKeysLiveNoLongerThanTheirStateMatters(Algorithm algorithm) {
        var redis = TestRedisSupport.shared();
        RedisRateLimiter limiter = (RedisRateLimiter) limiter(Backend.REDIS, algorithm, FIVE_PER_10S);

        Decision one = limiter.tryAcquire("a");
        assertTtlFits(redis, limiter.redisKey("a"), one);
        Decision three = limiter.tryAcquire("b", 3);
        assertTtlFits(redis, limiter.redisKey("b"), three);
        // A later take on a partly used key renews the TTL for its new state.
        clock.advance(Duration.ofSeconds(1));
        Decision again = limiter.tryAcquire("a", 2);
        assertTtlFits(redis, limiter.redisKey("a"), again);

        if (algorithm == Algorithm.FIXED_WINDOW) {
            // 300 us before the window ends: the count matters for less than a millisecond, and the
            // TTL must round up to 1 ms, not down to 0 (which would be no expiry or an error).
            clock.advance(TO_WINDOW_END.minusSeconds(1).minus(micros(300)));
            limiter.tryAcquire("c");
            long pttl = TestRedisSupport.pttl(redis, limiter.redisKey("c"));
            assertThat(pttl).isNotEqualTo(-1).isLessThanOrEqualTo(1);
        }

        List<String> keys = TestRedisSupport.keysUnder(redis, prefix);
        assertThat(keys).contains(limiter.redisKey("a"), limiter.redisKey("b"));
        for (String key : keys) {
            assertThat(TestRedisSupport.pttl(redis, key)).as("PTTL of %s", key).isNotEqualTo(-1);
        }
    }

    private static void assertTtlFits(org.springframework.data.redis.core.StringRedisTemplate redis, String key, Decision d) {
        long needMillis = (long) Math.ceil(d.resetAfter().toNanos() / 1_000_000.0);
        long pttl = TestRedisSupport.pttl(redis, key);
        assertThat(pttl).as("PTTL of %s for resetAfter %s", key, d.resetAfter())
            .isPositive()
            .isLessThanOrEqualTo(needMillis)
            // Redis counts TTLs in real time; allow for the test's own running time, not more.
            .isGreaterThan(needMillis - 2_000);
    }

    // Memory keys dropped once idle: InMemoryRateLimiterTests (limiter-core), where the key count is visible.

    // 5. concurrency

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    @Timeout(60)
    void concurrentCallersGetExactlyTheLimit(Backend backend, Algorithm algorithm) throws Exception {
        RateLimiter limiter = limiter(backend, algorithm, LimitSpec.of(100, WINDOW));
        int threads = 16;
        int callsEach = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    ready.countDown();
                    if (!go.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("start gate never opened");
                    }
                    int allowed = 0;
                    for (int i = 0; i < callsEach; i++) {
                        allowed += limiter.tryAcquire("hot").allowed() ? 1 : 0;
                    }
                    return allowed;
                }));
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            go.countDown(); // every thread starts at once, so calls really interleave
            int total = 0;
            for (Future<Integer> result : results) {
                total += result.get(30, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(100);
            assertThat(limiter.tryAcquire("hot").remaining()).isZero();
        }
        finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    // 6. independence

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void keysAndLimiterNamesDoNotShareALimit(Backend backend, Algorithm algorithm) {
        RateLimiterFactory factory = backend.factory(clock, prefix);
        RateLimiter orders = factory.create("orders", algorithm, FIVE_PER_10S);
        RateLimiter payments = factory.create("payments", algorithm, FIVE_PER_10S);
        RateLimiter otherAlgorithm = factory.create("orders",
                algorithm == Algorithm.FIXED_WINDOW ? Algorithm.TOKEN_BUCKET : Algorithm.FIXED_WINDOW, FIVE_PER_10S);

        assertThat(orders.tryAcquire("alice", 5).allowed()).isTrue();
        assertThat(orders.tryAcquire("alice").allowed()).isFalse();

        assertThat(orders.tryAcquire("bob").remaining()).as("another key").isEqualTo(4);
        assertThat(payments.tryAcquire("alice").remaining()).as("another limiter name").isEqualTo(4);
        assertThat(otherAlgorithm.tryAcquire("alice").remaining()).as("another algorithm").isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void redisLimitersOfTheSameNameShareOneLimitAcrossInstances(Algorithm algorithm) {
        // Two application instances: two factories, two limiter objects, one Redis.
        RateLimiter first = limiter(Backend.REDIS, algorithm, FIVE_PER_10S);
        RateLimiter second = limiter(Backend.REDIS, algorithm, FIVE_PER_10S);
        assertThat(first.tryAcquire("k", 3).allowed()).isTrue();
        Decision d = second.tryAcquire("k", 3);
        assertThat(d.allowed()).isFalse();
        assertThat(d.remaining()).isEqualTo(2);
        // A different key prefix is a different namespace.
        RateLimiter elsewhere = Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("orders", algorithm,
                FIVE_PER_10S);
        assertThat(elsewhere.tryAcquire("k", 3).allowed()).isTrue();
    }
}
