package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bucket algorithms against docs/algorithms.md, to the microsecond: every expected decision
 * below is worked out by hand from the spec's formulas. Leaky bucket and GCRA are the subject;
 * the token bucket runs too, because the spec makes the three indistinguishable from the outside.
 */
@RedisTest
class BucketAlgorithmsTests {

    static final LimitSpec THREE_PER_10S = LimitSpec.of(3, Duration.ofSeconds(10));

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    static final LimitSpec THREE_PER_SECOND = LimitSpec.of(3, Duration.ofSeconds(1));

    static final LimitSpec TEN_PER_MINUTE = LimitSpec.of(10, Duration.ofMinutes(1));

    static final long SECOND = 1_000_000;

    static final long DAY = 86_400 * SECOND;

    final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);

    final String prefix = TestRedisSupport.uniquePrefix();

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Backend backend : Backend.values()) {
            for (Algorithm algorithm : new Algorithm[] { Algorithm.LEAKY_BUCKET, Algorithm.GCRA, Algorithm.TOKEN_BUCKET }) {
                cases.add(Arguments.of(backend, algorithm));
            }
        }
        return cases.stream();
    }

    RateLimiter limiter(Backend backend, Algorithm algorithm, LimitSpec... limits) {
        return limiter(backend, algorithm, Duration.ZERO, limits);
    }

    RateLimiter limiter(Backend backend, Algorithm algorithm, Duration maxWait, LimitSpec... limits) {
        return backend.factory(clock, prefix).create("orders", RateLimiterConfig.of(algorithm, limits).withMaxWait(maxWait));
    }

    static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    static Decision allowed(long limit, long remaining, long resetAfter) {
        return new Decision(true, limit, remaining, micros(resetAfter), Duration.ZERO, Duration.ZERO, null);
    }

    static Decision waiting(long limit, long resetAfter, long waitFor) {
        return new Decision(true, limit, 0, micros(resetAfter), Duration.ZERO, micros(waitFor), null);
    }

    static Decision rejected(long limit, long remaining, long resetAfter, long retryAfter, LimitSpec violated) {
        return new Decision(false, limit, remaining, micros(resetAfter), micros(retryAfter), Duration.ZERO, violated);
    }

    static Decision never(long limit, long remaining, long resetAfter, LimitSpec violated) {
        return new Decision(false, limit, remaining, micros(resetAfter), Decision.NEVER, Duration.ZERO, violated);
    }

    /** {@code decision} with several limits, the reported one whole again after {@code limitResetAfter}. */
    static Decision reporting(long limitResetAfter, Decision decision) {
        return new Decision(decision.allowed(), decision.limit(), decision.remaining(), decision.resetAfter(), micros(limitResetAfter),
                decision.retryAfter(), decision.waitFor(), decision.violatedLimit(), decision.source());
    }

    // limit reached exactly, and refill by explicit time to the microsecond

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void limitIsReachedExactlyAndPassesAgainAtExactlyTheRetryAfter(Backend backend, Algorithm algorithm) {
        // One permit per 10/3 s: every time is a fraction of a microsecond rounded up.
        RateLimiter limiter = limiter(backend, algorithm, THREE_PER_10S);
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(3, 2, 3_333_334));
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(3, 1, 6_666_667));
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(3, 0, 10 * SECOND));
        Decision fourth = limiter.tryAcquire("k");
        assertThat(fourth).isEqualTo(rejected(3, 0, 10 * SECOND, 3_333_334, THREE_PER_10S));
        assertThat(limiter.tryAcquire("k")).as("a rejected call takes nothing").isEqualTo(fourth);

        // 3,333,333 us drain 0.9999999 permits: a tenth of a millionth is still missing.
        clock.advanceMicros(3_333_333);
        assertThat(limiter.tryAcquire("k")).as("one microsecond early").isEqualTo(rejected(3, 0, 6_666_667, 1, THREE_PER_10S));
        clock.advanceMicros(1);
        // 1.0000002 drained, 1 taken: 2.9999998 used, 0.0000002 free.
        assertThat(limiter.tryAcquire("k")).as("exactly at retry-after").isEqualTo(allowed(3, 0, 10 * SECOND));
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(3, 0, 10 * SECOND, 3_333_333, THREE_PER_10S));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void burstAboveLimitHoldsMoreButRefillsAtTheRate(Backend backend, Algorithm algorithm) {
        LimitSpec spec = FIVE_PER_10S.withBurst(8);
        RateLimiter limiter = limiter(backend, algorithm, spec);
        for (int i = 0; i < 8; i++) {
            assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(8, 7 - i, (i + 1) * 2 * SECOND));
        }
        // One permit per 2 s whatever the burst; all 8 take 16 s.
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(8, 0, 16 * SECOND, 2 * SECOND, spec));

        clock.advance(Duration.ofSeconds(10));
        assertThat(allowedOf(limiter, 8)).as("5 permits back after 10 s").isEqualTo(5);
        clock.advance(Duration.ofMinutes(5));
        assertThat(allowedOf(limiter, 10)).as("full, but never more than the burst").isEqualTo(8);
    }

    private static int allowedOf(RateLimiter limiter, int calls) {
        int allowed = 0;
        for (int i = 0; i < calls; i++) {
            allowed += limiter.tryAcquire("k").allowed() ? 1 : 0;
        }
        return allowed;
    }

    // cost

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void costAboveOneIsAllOrNothingAndAboveTheBurstIsNever(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(allowed(5, 2, 6 * SECOND));
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(rejected(5, 2, 6 * SECOND, 2 * SECOND, FIVE_PER_10S));
        assertThat(limiter.tryAcquire("k", 6)).isEqualTo(never(5, 2, 6 * SECOND, FIVE_PER_10S));
        assertThat(limiter.tryAcquire("k", Long.MAX_VALUE)).isEqualTo(never(5, 2, 6 * SECOND, FIVE_PER_10S));
        assertThat(limiter.tryAcquire("k", 2)).isEqualTo(allowed(5, 0, 10 * SECOND));
        assertThat(limiter.tryAcquire("k", 6)).as("still never, not later").isEqualTo(never(5, 0, 10 * SECOND, FIVE_PER_10S));

        clock.advance(Duration.ofSeconds(10));
        assertThat(limiter.tryAcquire("k", 5)).as("the whole burst at once").isEqualTo(allowed(5, 0, 10 * SECOND));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void costAboveTheBurstIsNeverEvenWithMaxWait(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, Duration.ofDays(1), FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 6)).isEqualTo(never(5, 5, 0, FIVE_PER_10S));
        assertThat(limiter.tryAcquire("k", 5)).as("nothing was taken").isEqualTo(allowed(5, 0, 10 * SECOND));
    }

    // several limits

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void severalLimitsAreCheckedTogetherAndARejectionTakesFromNone(Backend backend, Algorithm algorithm) {
        // 3 per second (one per 1/3 s) and 10 per minute (one per 6 s).
        RateLimiter limiter = limiter(backend, algorithm, TEN_PER_MINUTE, THREE_PER_SECOND);
        assertThat(limiter.config().limits()).as("sorted by window").containsExactly(THREE_PER_SECOND, TEN_PER_MINUTE);

        // The per-second limit has the fewest remaining (and is whole after 1/3 s per permit taken);
        // the per-minute one takes longest to reset.
        assertThat(limiter.tryAcquire("k")).isEqualTo(reporting(333_334, allowed(3, 2, 6 * SECOND)));
        assertThat(limiter.tryAcquire("k")).isEqualTo(reporting(666_667, allowed(3, 1, 12 * SECOND)));
        assertThat(limiter.tryAcquire("k")).isEqualTo(reporting(SECOND, allowed(3, 0, 18 * SECOND)));
        assertThat(limiter.tryAcquire("k")).as("rejected by the per-second limit")
            .isEqualTo(reporting(SECOND, rejected(3, 0, 18 * SECOND, 333_334, THREE_PER_SECOND)));

        // 1 s later: per second empty again; per minute 3 - 1/6 = 17/6 used. Taking 3 leaves 25/6 free,
        // used 35/6 -> reset 35 s: the rejected call above took nothing from the per-minute limit.
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reporting(SECOND, allowed(3, 0, 35 * SECOND)));
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reporting(SECOND, allowed(3, 0, 52 * SECOND))); // 26/3 used per minute
        clock.advance(Duration.ofSeconds(1));
        // Per minute: 8.5 used, 1 free. Per second: empty. Cost 2 fails the per-minute limit only.
        assertThat(limiter.tryAcquire("k", 2)).as("rejected by the per-minute limit")
            .isEqualTo(rejected(10, 1, 51 * SECOND, 3 * SECOND, TEN_PER_MINUTE));
        // Had the rejection taken 2 per second, both limits would now show 0 left and the first (3) would
        // be reported; untouched, the per-second limit has 2 left and the per-minute one is reported.
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(10, 0, 57 * SECOND));
        // Both reject: the per-second limit after 1/3 s, the per-minute one after 2.5 * 6 s. The longer wins.
        assertThat(limiter.tryAcquire("k", 3)).as("rejected by both")
            .isEqualTo(rejected(10, 0, 57 * SECOND, 15 * SECOND, TEN_PER_MINUTE));
        // More than one limit's capacity: never, and that limit is the violated one.
        assertThat(limiter.tryAcquire("k", 4)).isEqualTo(never(10, 0, 57 * SECOND, THREE_PER_SECOND));
        assertThat(limiter.tryAcquire("k", 11)).isEqualTo(never(10, 0, 57 * SECOND, THREE_PER_SECOND));

        // Half a per-minute permit is missing: it is back 3 s later, not a microsecond earlier.
        clock.advance(Duration.ofSeconds(3).minus(micros(1)));
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(10, 0, 54 * SECOND + 1, 1, TEN_PER_MINUTE));
        clock.advanceMicros(1);
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(10, 0, 60 * SECOND));
    }

    // max-wait

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void waitingCallersTakeTheirPermitsNowAndLaterCallersWaitBehindThem(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, Duration.ofSeconds(5), FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 5)).isEqualTo(allowed(5, 0, 10 * SECOND));
        // Into debt: one permit per 2 s, each caller behind the previous one.
        assertThat(limiter.tryAcquire("k")).isEqualTo(waiting(5, 12 * SECOND, 2 * SECOND));
        assertThat(limiter.tryAcquire("k")).isEqualTo(waiting(5, 14 * SECOND, 4 * SECOND));
        // 6 s would exceed max-wait: rejected as without it, nothing taken.
        Decision tooLong = limiter.tryAcquire("k");
        assertThat(tooLong).isEqualTo(rejected(5, 0, 14 * SECOND, 6 * SECOND, FIVE_PER_10S));
        assertThat(limiter.tryAcquire("k")).isEqualTo(tooLong);
        assertThat(limiter.tryAcquire("k", 6)).isEqualTo(never(5, 0, 14 * SECOND, FIVE_PER_10S));

        // A second later the wait is exactly max-wait: allowed.
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k")).isEqualTo(waiting(5, 15 * SECOND, 5 * SECOND));
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(5, 0, 15 * SECOND, 7 * SECOND, FIVE_PER_10S));

        // Once the debt is paid back and the bucket is whole, nobody waits.
        clock.advance(Duration.ofSeconds(15));
        assertThat(limiter.tryAcquire("k", 5)).isEqualTo(allowed(5, 0, 10 * SECOND));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void waitingWithSeveralLimitsWaitsForTheSlowest(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, Duration.ofSeconds(10), THREE_PER_SECOND, TEN_PER_MINUTE);
        // The per-second limit, reported, is whole again 1/3 s per permit taken later, debt included.
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reporting(SECOND, allowed(3, 0, 18 * SECOND)));
        assertThat(limiter.tryAcquire("k")).isEqualTo(reporting(1_333_334, waiting(3, 24 * SECOND, 333_334)));
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reporting(2_333_334, waiting(3, 42 * SECOND, 1_333_334)));
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reporting(3_333_334, waiting(3, 60 * SECOND, 2_333_334)));
        // 11 used per second: the per-minute limit (now 1 over) sets the wait.
        assertThat(limiter.tryAcquire("k")).isEqualTo(reporting(3_666_667, waiting(3, 66 * SECOND, 6 * SECOND)));
        // 4 over per minute: 24 s > 10 s. Both limits are in debt and show 0 left; the deeper debt
        // (per second: 3 - 11 = -8) is the one reported.
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reporting(3_666_667, rejected(3, 0, 66 * SECOND, 24 * SECOND, TEN_PER_MINUTE)));
    }

    // tiny and huge rates

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void tinyRates(Backend backend, Algorithm algorithm) {
        LimitSpec hourly = LimitSpec.of(1, Duration.ofHours(1));
        RateLimiter perHour = limiter(backend, algorithm, hourly);
        assertThat(perHour.tryAcquire("k")).isEqualTo(allowed(1, 0, 3_600 * SECOND));
        assertThat(perHour.tryAcquire("k")).isEqualTo(rejected(1, 0, 3_600 * SECOND, 3_600 * SECOND, hourly));
        clock.advance(Duration.ofHours(1).minus(micros(1)));
        assertThat(perHour.tryAcquire("k")).isEqualTo(rejected(1, 0, 1, 1, hourly));
        clock.advanceMicros(1);
        assertThat(perHour.tryAcquire("k")).isEqualTo(allowed(1, 0, 3_600 * SECOND));

        // 1 per 30 days with a burst of 12: 360 days to refill, close to the longest supported.
        LimitSpec monthly = new LimitSpec(1, Duration.ofDays(30), 12);
        RateLimiter perMonth = backend.factory(clock, prefix).create("monthly", algorithm, monthly);
        assertThat(perMonth.tryAcquire("k", 12)).isEqualTo(allowed(12, 0, 360 * DAY));
        assertThat(perMonth.tryAcquire("k")).isEqualTo(rejected(12, 0, 360 * DAY, 30 * DAY, monthly));
        clock.advance(Duration.ofDays(30).minus(micros(1)));
        assertThat(perMonth.tryAcquire("k")).isEqualTo(rejected(12, 0, 330 * DAY + 1, 1, monthly));
        clock.advanceMicros(1);
        assertThat(perMonth.tryAcquire("k")).isEqualTo(allowed(12, 0, 360 * DAY));
        clock.advance(Duration.ofDays(45));
        assertThat(perMonth.tryAcquire("k")).as("1.5 permits back").isEqualTo(allowed(12, 0, 345 * DAY));
        assertThat(perMonth.tryAcquire("k")).isEqualTo(rejected(12, 0, 345 * DAY, 15 * DAY, monthly));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void hugeRates(Backend backend, Algorithm algorithm) {
        long max = LimitSpec.MAX_LIMIT;
        // 2^31-1 per second: a permit every 0.000466 us, 2147.483647 permits per microsecond.
        LimitSpec perSecond = LimitSpec.of(max, Duration.ofSeconds(1));
        RateLimiter fast = limiter(backend, algorithm, perSecond);
        assertThat(fast.tryAcquire("k", max)).isEqualTo(allowed(max, 0, SECOND));
        assertThat(fast.tryAcquire("k")).isEqualTo(rejected(max, 0, SECOND, 1, perSecond));
        clock.advanceMicros(1);
        assertThat(fast.tryAcquire("k", 2148)).isEqualTo(rejected(max, 2147, SECOND - 1, 1, perSecond));
        assertThat(fast.tryAcquire("k", 2147)).isEqualTo(allowed(max, 0, SECOND));
        assertThat(fast.tryAcquire("k")).isEqualTo(rejected(max, 0, SECOND, 1, perSecond));

        // 2^31-1 per 30 days: 828.504493... permits per second.
        LimitSpec perMonth = LimitSpec.of(max, Duration.ofDays(30));
        RateLimiter monthly = backend.factory(clock, prefix).create("monthly", algorithm, perMonth);
        assertThat(monthly.tryAcquire("k", max)).isEqualTo(allowed(max, 0, 30 * DAY));
        clock.advance(Duration.ofSeconds(1));
        assertThat(monthly.tryAcquire("k", 829)).isEqualTo(rejected(max, 828, 30 * DAY - SECOND, 599, perMonth));
        assertThat(monthly.tryAcquire("k", 828)).isEqualTo(allowed(max, 0, 2_591_999_999_392L));
        assertThat(monthly.tryAcquire("k")).isEqualTo(rejected(max, 0, 2_591_999_999_392L, 599, perMonth));
    }

    // time

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void longIdlenessRefillsToTheBurstAndNoFurther(Backend backend, Algorithm algorithm) {
        // The slowest refill accepted: 366 days for 366,000 permits.
        LimitSpec slow = new LimitSpec(1_000, Duration.ofDays(1), 366_000);
        RateLimiter limiter = limiter(backend, algorithm, slow);
        assertThat(limiter.tryAcquire("k", 366_000)).isEqualTo(allowed(366_000, 0, 366 * DAY));
        clock.advance(Duration.ofDays(366).minus(micros(1)));
        assertThat(limiter.tryAcquire("k", 366_000).allowed()).as("1 us before full").isFalse();
        clock.advance(Duration.ofDays(400));
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(366_000, 365_999, 86_400_000));

        // A microsecond window idle for a century: the elapsed time must not overflow the arithmetic.
        LimitSpec fast = LimitSpec.of(1, micros(1));
        RateLimiter tiny = backend.factory(clock, prefix).create("tiny", algorithm, fast);
        assertThat(tiny.tryAcquire("k")).isEqualTo(allowed(1, 0, 1));
        clock.advance(Duration.ofDays(36_525));
        assertThat(tiny.tryAcquire("k")).isEqualTo(allowed(1, 0, 1));
        assertThat(limiter.tryAcquire("k", 366_000)).isEqualTo(allowed(366_000, 0, 366 * DAY));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aClockGoingBackwardsStandsStill(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 5)).isEqualTo(allowed(5, 0, 10 * SECOND));
        clock.advance(Duration.ofSeconds(-5));
        assertThat(limiter.tryAcquire("k")).as("no refill, and no extra debt either")
            .isEqualTo(rejected(5, 0, 10 * SECOND, 2 * SECOND, FIVE_PER_10S));
        clock.advance(Duration.ofHours(-1));
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(5, 0, 10 * SECOND, 2 * SECOND, FIVE_PER_10S));
        // Refill counts from the latest time seen.
        clock.advance(Duration.ofHours(1).plusSeconds(7).minus(micros(1)));
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(5, 0, 8 * SECOND + 1, 1, FIVE_PER_10S));
        clock.advanceMicros(1);
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(5, 0, 10 * SECOND));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aRequestAllowedWhileTheClockIsBehindCountsAtTheLatestTime(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(allowed(5, 2, 6 * SECOND));
        clock.advance(Duration.ofSeconds(-5));
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(5, 1, 8 * SECOND));
        // 2 s after the first call: 4 used - 1 drained. Had the state moved back with the clock, 7 s
        // would have drained 3.5.
        clock.advance(Duration.ofSeconds(7));
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(5, 1, 8 * SECOND));
    }

    /**
     * Shows a flaw of the shared layer, not of one algorithm: a state written while the clock is behind
     * its latest time matters until that latest time plus reset-after, but the key's expiry counts
     * reset-after from the clock's reading. {@code InMemoryRateLimiter} (idle at now + ttl) then forgets
     * the state early and hands out permits that are not there; Redis would too if its own clock stepped
     * back (PEXPIRE counts from Redis's now). Fails on MEMORY for every bucket algorithm; enable once
     * expiry counts from max(now, last).
     */
    @Disabled("InMemoryRateLimiter and the scripts' ttl.lua count reset-after from a clock that went backwards")
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aStateWrittenWhileTheClockIsBehindIsNotForgottenEarly(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = limiter(backend, algorithm, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(allowed(5, 2, 6 * SECOND));
        clock.advance(Duration.ofSeconds(-5));
        // Matters until 8 s after the first call; memory keeps it only until 8 - 5 = 3 s after it.
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(5, 1, 8 * SECOND));
        clock.advance(Duration.ofSeconds(9));
        assertThat(limiter.tryAcquire("k")).isEqualTo(allowed(5, 2, 6 * SECOND));
    }
}
