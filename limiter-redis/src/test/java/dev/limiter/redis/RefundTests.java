package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Giving permits back: every limit of the key gets them, never beyond whole; an idle key is left
 * alone; the state keeps a TTL as long as it matters; the refunding instance forgets its remembered
 * rejection. For every algorithm on Redis and in memory, on a virtual clock.
 */
@RedisTest
class RefundTests {

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    static List<Arguments> backendsAndAlgorithms() {
        return Arrays.stream(Backend.values())
            .flatMap(backend -> Arrays.stream(Algorithm.values()).map(algorithm -> Arguments.of(backend, algorithm)))
            .toList();
    }

    /** 5 per second and 8 per minute: after a second, the minute's limit is the one with fewest left. */
    static RateLimiterConfig twoLimits(Algorithm algorithm) {
        return RateLimiterConfig.of(algorithm, LimitSpec.of(5, Duration.ofSeconds(1)), LimitSpec.of(8, Duration.ofMinutes(1)));
    }

    RateLimiter limiter(Backend backend, RateLimiterConfig config) {
        return backend.factory(clock, prefix).create("orders", config);
    }

    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void permitsGivenBackAreTakenAgainUnderEveryLimit(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, twoLimits(algorithm));
        assertThat(limiter.tryAcquire("alice", 3).remaining()).isEqualTo(2);

        Quota refunded = limiter.refund("alice", 2);

        // The second's limit gets them back.
        assertThat(refunded.remaining()).isEqualTo(4);
        assertThat(refunded.limit()).isEqualTo(5);
        assertThat(refunded.source()).isEqualTo((backend == Backend.REDIS) ? DecisionSource.REDIS : DecisionSource.MEMORY);
        assertThat(limiter.quota("alice")).isEqualTo(refunded);
        assertThat(limiter.tryAcquire("alice", 4).allowed()).isTrue();
        assertThat(limiter.tryAcquire("alice").allowed()).isFalse();

        // A second later the second's limit is whole, and the minute's has 3 left of 8 (3 taken, 2 given
        // back, 4 taken; the buckets refilled a fraction of a permit).
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.quota("alice").remaining()).isEqualTo(3);
        Quota again = limiter.refund("alice", 1);
        assertThat(again.remaining()).as("the minute's limit gets it back; the whole second's stays at 5").isEqualTo(4);
        assertThat(again.limit()).isEqualTo(8);
        assertThat(limiter.tryAcquire("alice", 4).allowed()).isTrue();
        assertThat(limiter.tryAcquire("alice").allowed()).isFalse();
    }

    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void moreThanTheKeyTookMakesItWholeAndForgetsItsState(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, twoLimits(algorithm));
        limiter.tryAcquire("alice", 3);

        Quota refunded = limiter.refund("alice", 1_000_000);

        assertThat(refunded.remaining()).isEqualTo(5);
        assertThat(refunded.resetAfter()).isZero();
        assertGone(backend, limiter, "alice");
        assertThat(limiter.tryAcquire("alice", 5).allowed()).isTrue();
        assertThat(limiter.tryAcquire("alice").allowed()).isFalse();
        assertThat(limiter.refund("alice", Long.MAX_VALUE).remaining()).as("any number of permits").isEqualTo(5);
    }

    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void anIdleKeyIsLeftAloneAndNothingIsWritten(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, twoLimits(algorithm));

        Quota refunded = limiter.refund("nobody", 3);

        assertThat(refunded.remaining()).isEqualTo(5);
        assertThat(refunded.resetAfter()).isZero();
        assertGone(backend, limiter, "nobody");

        // Whole again by now: nothing to give back either, and nothing written.
        limiter.tryAcquire("bob", 1);
        clock.advance(Duration.ofMinutes(2));
        assertThat(limiter.refund("bob", 1).remaining()).isEqualTo(5);
        assertThat(limiter.tryAcquire("bob", 5).allowed()).isTrue();
        assertThat(limiter.tryAcquire("bob").allowed()).isFalse();
    }

    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void fewerThanOnePermitIsRefused(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, twoLimits(algorithm));
        assertThatIllegalArgumentException().isThrownBy(() -> limiter.refund("alice", 0))
            .withMessage("permits must be at least 1 but was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> limiter.refund("alice", -3))
            .withMessage("permits must be at least 1 but was -3");
    }

    /** Sub-windows and log entries: the newest permits go back first, so the older ones leave as they would have. */
    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void theNewestPermitsGoBackFirst(Backend backend, Algorithm algorithm) {
        if (algorithm != Algorithm.SLIDING_WINDOW && algorithm != Algorithm.SLIDING_LOG) {
            return;
        }
        RateLimiter limiter = limiter(backend, RateLimiterConfig.of(algorithm, LimitSpec.of(4, Duration.ofSeconds(10))));
        limiter.tryAcquire("alice", 2);
        clock.advance(Duration.ofSeconds(5));
        limiter.tryAcquire("alice", 2);

        assertThat(limiter.refund("alice", 1).remaining()).isEqualTo(1);

        // The two taken first leave; of the two taken later, one was given back.
        clock.advance(Duration.ofSeconds(5));
        assertThat(limiter.quota("alice").remaining()).isEqualTo(3);
        clock.advance(Duration.ofSeconds(5));
        assertThat(limiter.quota("alice").remaining()).isEqualTo(4);
    }

    /** The TTL a refund leaves is the one a decision would set for that state: until every limit is whole again. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theStateKeepsATtlAsLongAsItMatters(Algorithm algorithm) {
        RedisRateLimiter limiter = (RedisRateLimiter) limiter(Backend.REDIS, twoLimits(algorithm));
        String redisKey = limiter.redisKey("alice");
        limiter.tryAcquire("alice", 5);

        Quota refunded = limiter.refund("alice", 2);

        long expected = Math.max(1, (refunded.resetAfter().toNanos() / 1_000 + 999) / 1_000);
        long ttl = TestRedisSupport.pttl(TestRedisSupport.shared(), redisKey);
        assertThat(ttl).as("PTTL after the refund; reset-after %s", refunded.resetAfter()).isBetween(expected - 1_000, expected);
        // The same as a decision reads it.
        assertThat(limiter.quota("alice").resetAfter()).isEqualTo(refunded.resetAfter());
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theRefundingInstanceForgetsItsRememberedRejection(Algorithm algorithm) {
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix).clock(clock)
            .localDenyCache(100).build();
        try {
            RateLimiter limiter = factory.create("orders", twoLimits(algorithm));
            limiter.tryAcquire("alice", 5);
            assertThat(limiter.tryAcquire("alice").source()).isEqualTo(DecisionSource.REDIS);
            assertThat(limiter.tryAcquire("alice").source()).isEqualTo(DecisionSource.LOCAL_DENY_CACHE);

            limiter.refund("alice", 1);

            Decision after = limiter.tryAcquire("alice");
            assertThat(after.allowed()).isTrue();
            assertThat(after.source()).isEqualTo(DecisionSource.REDIS);
        }
        finally {
            factory.close();
        }
    }

    /** No state left in Redis; the same of memory is InMemoryRateLimiterTests's (limiter-core), where the key count is visible. */
    private static void assertGone(Backend backend, RateLimiter limiter, String key) {
        if (backend == Backend.REDIS) {
            assertThat(TestRedisSupport.exists(TestRedisSupport.shared(), ((RedisRateLimiter) limiter).redisKey(key)))
                .as("no state in Redis").isFalse();
        }
    }
}
