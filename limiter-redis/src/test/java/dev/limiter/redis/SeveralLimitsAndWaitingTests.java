package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The parts of the script contract shared by every algorithm, checked with explicit expectations
 * on fixed window and token bucket: several limits decided together, waiting with max-wait, and
 * configuration changes never reading old state.
 */
@RedisTest
class SeveralLimitsAndWaitingTests {

    static final LimitSpec THREE_PER_SECOND = LimitSpec.of(3, Duration.ofSeconds(1));

    static final LimitSpec TEN_PER_MINUTE = LimitSpec.of(10, Duration.ofMinutes(1));

    /** The start of a minute (1 700 000 040 s since the epoch), so every fixed window begins with the test. */
    final VirtualClock clock = new VirtualClock(1_700_000_040_000_000L);

    final String prefix = TestRedisSupport.uniquePrefix();

    @ParameterizedTest
    @EnumSource(Backend.class)
    void fixedWindowLimitsAreCheckedTogetherAndRejectionTakesFromNone(Backend backend) {
        RateLimiter limiter = backend.factory(clock, prefix)
            .create("api", RateLimiterConfig.of(Algorithm.FIXED_WINDOW, TEN_PER_MINUTE, THREE_PER_SECOND));
        assertThat(limiter.limits()).as("sorted by window").containsExactly(THREE_PER_SECOND, TEN_PER_MINUTE);
        for (int second = 0; second < 3; second++) {
            for (int i = 0; i < 3; i++) {
                Decision allowed = limiter.tryAcquire("k");
                assertThat(allowed.allowed()).isTrue();
                assertThat(allowed.violatedLimit()).isNull();
            }
            Decision rejected = limiter.tryAcquire("k");
            assertThat(rejected.allowed()).isFalse();
            assertThat(rejected.violatedLimit()).isEqualTo(THREE_PER_SECOND);
            assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(1));
            // The per-second limit has no permits left: it is the one reported.
            assertThat(rejected.limit()).isEqualTo(3);
            assertThat(rejected.remaining()).isZero();
            clock.advance(Duration.ofSeconds(1));
        }
        // 9 of 10 taken this minute: one more fits, then the minute's limit rejects.
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        Decision rejected = limiter.tryAcquire("k");
        assertThat(rejected.violatedLimit()).isEqualTo(TEN_PER_MINUTE);
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(57));
        assertThat(rejected.limit()).isEqualTo(10);
        // A cost the per-second limit could grant but the minute cannot right now: nothing is taken.
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k", 2).allowed()).isFalse();
        assertThat(limiter.tryAcquire("k", 2).violatedLimit()).isEqualTo(TEN_PER_MINUTE);
        Decision reset = limiter.tryAcquire("k", 3);
        assertThat(reset.allowed()).isFalse();
        assertThat(reset.resetAfter()).as("the minute's window ends last").isEqualTo(Duration.ofSeconds(56));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCostAboveOneLimitsCapacityIsNeverAllowedNamingThatLimit(Backend backend) {
        RateLimiter limiter = backend.factory(clock, prefix)
            .create("api", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, THREE_PER_SECOND, TEN_PER_MINUTE));
        Decision decision = limiter.tryAcquire("k", 4);
        assertThat(decision.neverAllowed()).isTrue();
        assertThat(decision.violatedLimit()).isEqualTo(THREE_PER_SECOND);
        assertThat(limiter.tryAcquire("k", 3).remaining()).as("nothing was taken").isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void tokenBucketLimitsRefillEachAtItsOwnRate(Backend backend) {
        RateLimiter limiter = backend.factory(clock, prefix)
            .create("api", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, THREE_PER_SECOND, TEN_PER_MINUTE));
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
        Decision rejected = limiter.tryAcquire("k");
        assertThat(rejected.violatedLimit()).isEqualTo(THREE_PER_SECOND);
        assertThat(rejected.retryAfter()).as("1/3 s, rounded up to the microsecond").isEqualTo(Duration.ofNanos(333_334_000));
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
        // 6 of 10 minute tokens used, 1 s refilled 1/6 of one: 4 whole tokens left there.
        assertThat(limiter.tryAcquire("k", 3).allowed()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        Decision third = limiter.tryAcquire("k", 3);
        assertThat(third.allowed()).isTrue();
        // The second's bucket is empty again (reported); the minute's keeps 4 1/3 - 3 tokens.
        assertThat(third.limit()).isEqualTo(3);
        assertThat(third.remaining()).isZero();
        clock.advance(Duration.ofSeconds(1));
        Decision minute = limiter.tryAcquire("k", 2);
        assertThat(minute.allowed()).as("1 1/2 minute tokens").isFalse();
        assertThat(minute.violatedLimit()).isEqualTo(TEN_PER_MINUTE);
        assertThat(minute.retryAfter()).as("half a token at one per 6 s").isEqualTo(Duration.ofSeconds(3));
        Decision one = limiter.tryAcquire("k");
        assertThat(one.allowed()).isTrue();
        assertThat(one.limit()).as("now the minute's bucket is the tighter").isEqualTo(10);
        assertThat(one.remaining()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void withMaxWaitCallersReserveTheirTurnAndTheNextWaitsBehindThem(Backend backend) {
        // 10 per second, burst 2: a token every 100 ms; callers may wait up to 250 ms.
        RateLimiter limiter = backend.factory(clock, prefix)
            .create("paced", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, new LimitSpec(10, Duration.ofSeconds(1), 2))
                .withMaxWait(Duration.ofMillis(250)));
        assertThat(limiter.tryAcquire("k", 2).waitFor()).isZero();
        Decision first = limiter.tryAcquire("k");
        assertThat(first.allowed()).isTrue();
        assertThat(first.waitFor()).isEqualTo(Duration.ofMillis(100));
        assertThat(first.remaining()).isZero();
        assertThat(limiter.tryAcquire("k").waitFor()).isEqualTo(Duration.ofMillis(200));
        Decision tooLong = limiter.tryAcquire("k");
        assertThat(tooLong.allowed()).isFalse();
        assertThat(tooLong.retryAfter()).isEqualTo(Duration.ofMillis(300));
        assertThat(tooLong.waitFor()).isZero();
        // The rejected call took nothing: after 100 ms the debt is one token smaller.
        clock.advance(Duration.ofMillis(100));
        assertThat(limiter.tryAcquire("k").waitFor()).isEqualTo(Duration.ofMillis(200));
        // A full second later the debt is paid and the bucket refilled to its burst.
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k", 2).waitFor()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aChangedConfigurationStartsFromFreshState(Backend backend) {
        RateLimiter before = backend.factory(clock, prefix).create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(5, Duration.ofMinutes(1)));
        for (int i = 0; i < 5; i++) {
            before.tryAcquire("k");
        }
        assertThat(before.tryAcquire("k").allowed()).isFalse();
        RateLimiter after = backend.factory(clock, prefix).create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(8, Duration.ofMinutes(1)));
        assertThat(after.tryAcquire("k").remaining()).isEqualTo(7);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void badCombinationsOfLimitsAreRejected(Algorithm algorithm) {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> RateLimiterConfig.of(algorithm, LimitSpec.of(100, Duration.ofSeconds(1)), LimitSpec.of(10, Duration.ofHours(1))))
            .withMessageContaining("100/PT1S")
            .withMessageContaining("shorter window needs a smaller limit");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> RateLimiterConfig.of(algorithm, LimitSpec.of(1, Duration.ofSeconds(1)), LimitSpec.of(2, Duration.ofMillis(1000))))
            .withMessageContaining("same window");
        assertThatIllegalArgumentException().isThrownBy(() -> new RateLimiterConfig(algorithm, List.of(), 10, Duration.ZERO));
        if (!algorithm.isBucket()) {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimiterConfig.of(algorithm, THREE_PER_SECOND).withMaxWait(Duration.ofSeconds(1)))
                .withMessageContaining("max-wait");
        }
    }
}
