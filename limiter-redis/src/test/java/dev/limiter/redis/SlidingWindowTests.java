package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Sliding-window (sub-window counters) on both backends, with the values docs/algorithms.md gives.
 * Unless a test says otherwise: 5 per 10 s in 10 sub-windows of 1 s, starting 3.25 s into an
 * epoch-aligned hour, so the first sub-window used leaves the window 9.75 s after the start.
 */
@RedisTest
class SlidingWindowTests {

    /**
     * An hour-aligned start: {@link VirtualClock#EPOCH_ALIGNED_START} is aligned to 10 s but lies 800 s
     * into an hour (and 20 s into a minute), while these tests use minute and hour windows.
     */
    static final long E = VirtualClock.EPOCH_ALIGNED_START - Math.floorMod(VirtualClock.EPOCH_ALIGNED_START, 3_600_000_000L);

    static final long SECOND = 1_000_000;

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    static final LimitSpec THREE_PER_SECOND = LimitSpec.of(3, Duration.ofSeconds(1));

    static final LimitSpec TEN_PER_MINUTE = LimitSpec.of(10, Duration.ofMinutes(1));

    final VirtualClock clock = new VirtualClock(E + 3_250_000);

    final String prefix = TestRedisSupport.uniquePrefix();

    RateLimiter limiter(Backend backend, RateLimiterConfig config) {
        return backend.factory(clock, prefix).create("sw", config);
    }

    RateLimiter limiter(Backend backend, LimitSpec... limits) {
        return limiter(backend, RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, limits));
    }

    static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void limitIsReachedExactlyAndRejectedCallsTakeNothing(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            Decision d = limiter.tryAcquire("k");
            assertThat(d.allowed()).as("call %d", i + 1).isTrue();
            assertThat(d.remaining()).isEqualTo(4 - i);
            assertThat(d.limit()).isEqualTo(5);
            // Whole again once the sub-window holding the permits leaves: (j + N)·S - t.
            assertThat(d.resetAfter()).isEqualTo(Duration.ofMillis(9_750));
        }
        Decision sixth = limiter.tryAcquire("k");
        assertThat(sixth).isEqualTo(new Decision(false, 5, 0, Duration.ofMillis(9_750), Duration.ofMillis(9_750), Duration.ZERO,
                FIVE_PER_10S));
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k")).isEqualTo(sixth);
        }
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(Duration.ofMillis(8_750));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void countsLeaveExactlyAtSubWindowBoundaries(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue(); // sub-window [3 s, 4 s)
        clock.set(E + 5_250_000);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue(); // sub-window [5 s, 6 s)

        clock.set(E + 10_250_000);
        Decision full = limiter.tryAcquire("k");
        assertThat(full.allowed()).isFalse();
        // The 2 permits of [3 s, 4 s) leave at 13 s; the whole limit is back when [5 s, 6 s) leaves at 15 s.
        assertThat(full.retryAfter()).isEqualTo(Duration.ofMillis(2_750));
        assertThat(full.resetAfter()).isEqualTo(Duration.ofMillis(4_750));

        clock.advance(full.retryAfter().minus(micros(1)));
        Decision early = limiter.tryAcquire("k");
        assertThat(early.allowed()).as("1 us before the sub-window leaves").isFalse();
        assertThat(early.retryAfter()).isEqualTo(micros(1));

        clock.advanceMicros(1);
        Decision onTime = limiter.tryAcquire("k");
        assertThat(onTime.allowed()).as("exactly at retry-after").isTrue();
        assertThat(onTime.remaining()).isEqualTo(1);
        // Two more need the 3 permits of [5 s, 6 s) gone: 2 s later.
        Decision two = limiter.tryAcquire("k", 2);
        assertThat(two.allowed()).isFalse();
        assertThat(two.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(two.resetAfter()).isEqualTo(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void limitHoldsOverAnyWindowLongSpanToWithinOneSubWindow(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        List<Long> admitted = new ArrayList<>();
        for (int i = 0; i < 900; i++) { // a call every 100 ms for 90 s
            if (limiter.tryAcquire("k").allowed()) {
                admitted.add(clock.nowMicros());
            }
            clock.advance(Duration.ofMillis(100));
        }
        // Any span of W - S covers at most N whole sub-windows, which never hold more than L together.
        assertThat(maxInSpan(admitted, 9 * SECOND)).isEqualTo(5);
        // A full window may see one sub-window more: the approximation the algorithm makes.
        assertThat(maxInSpan(admitted, 10 * SECOND)).isGreaterThan(5).isLessThanOrEqualTo(10);
        assertThat(admitted).hasSizeBetween(45, 50);
    }

    /** Most admitted times in any half-open span of {@code length} microseconds. */
    static int maxInSpan(List<Long> times, long length) {
        int most = 0;
        int first = 0;
        for (int last = 0; last < times.size(); last++) {
            while (times.get(last) - times.get(first) >= length) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most;
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void oneSubWindowDecidesLikeAFixedWindow(Backend backend) {
        RateLimiterConfig sliding = RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, THREE_PER_SECOND, TEN_PER_MINUTE).withSubWindows(1);
        RateLimiter oneSubWindow = limiter(backend, sliding);
        RateLimiter fixed = backend.factory(clock, prefix).create("fw", RateLimiterConfig.of(Algorithm.FIXED_WINDOW, THREE_PER_SECOND,
                TEN_PER_MINUTE));
        Random random = new Random(42);
        int rejected = 0;
        for (int step = 0; step < 400; step++) {
            clock.advanceMicros(random.nextInt(random.nextBoolean() ? 400_000 : 4_000_000));
            long cost = 1 + random.nextInt(random.nextInt(20) == 0 ? 11 : 3);
            Decision d = fixed.tryAcquire("k", cost);
            assertEquals(d, oneSubWindow.tryAcquire("k", cost), "step " + step + " at " + clock.nowMicros() + " cost " + cost);
            rejected += d.allowed() ? 0 : 1;
        }
        assertThat(rejected).isGreaterThan(50);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void costAboveOneTakesAllOrNothingAndAboveTheLimitIsNever(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 3).remaining()).isEqualTo(2);
        Decision second = limiter.tryAcquire("k", 3);
        assertThat(second.allowed()).isFalse();
        assertThat(second.remaining()).isEqualTo(2);
        assertThat(second.retryAfter()).isEqualTo(Duration.ofMillis(9_750));

        Decision never = limiter.tryAcquire("k", 6);
        assertThat(never).isEqualTo(new Decision(false, 5, 2, Duration.ofMillis(9_750), Decision.NEVER, Duration.ZERO, FIVE_PER_10S));
        assertThat(limiter.tryAcquire("k", 2).remaining()).isZero();
        assertThat(limiter.tryAcquire("k", 6).neverAllowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void severalLimitsAreCheckedTogetherAndARejectionTakesFromNone(Backend backend) {
        // 10 sub-windows: of 100 ms for the second, of 6 s for the minute.
        RateLimiter limiter = limiter(backend, THREE_PER_SECOND, TEN_PER_MINUTE);
        clock.set(E + 250_000);
        for (int i = 0; i < 3; i++) {
            Decision d = limiter.tryAcquire("k");
            assertThat(d.allowed()).isTrue();
            assertThat(d.limit()).as("the second has fewer left than the minute").isEqualTo(3);
            assertThat(d.remaining()).isEqualTo(2 - i);
            // The minute's sub-window [0, 6 s) leaves at 60 s; the second's [200 ms, 300 ms) at 1.2 s.
            assertThat(d.resetAfter()).isEqualTo(Duration.ofMillis(59_750));
        }
        // The second is whole again when its sub-window [200 ms, 300 ms) leaves, at 1.2 s: as it admits.
        assertThat(limiter.tryAcquire("k")).isEqualTo(new Decision(false, 3, 0, Duration.ofMillis(59_750), Duration.ofMillis(950),
                Duration.ofMillis(950), Duration.ZERO, THREE_PER_SECOND, DecisionSource.MEMORY));

        clock.set(E + 1_200_000);
        assertThat(limiter.tryAcquire("k", 3).allowed()).as("the rejected call took nothing from the minute").isTrue();
        clock.set(E + 2_200_000);
        Decision nine = limiter.tryAcquire("k", 3);
        assertThat(nine.allowed()).isTrue();
        assertThat(nine.limit()).isEqualTo(3);
        assertThat(nine.remaining()).isZero();

        clock.set(E + 3_200_000);
        assertThat(limiter.tryAcquire("k", 2)).as("only the minute rejects").isEqualTo(new Decision(false, 10, 1, Duration.ofMillis(56_800),
                Duration.ofMillis(56_800), Duration.ZERO, TEN_PER_MINUTE));
        Decision ten = limiter.tryAcquire("k");
        assertThat(ten.allowed()).isTrue();
        assertThat(ten.limit()).isEqualTo(10);
        assertThat(ten.remaining()).isZero();
        // Both reject: the minute's longer retry-after wins and names the minute.
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(new Decision(false, 10, 0, Duration.ofMillis(56_800),
                Duration.ofMillis(56_800), Duration.ZERO, TEN_PER_MINUTE));

        // At 60 s the minute's sub-window [0, 6 s) leaves with all 10 permits.
        clock.set(E + 60_000_000);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
        clock.set(E + 61_000_000);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
        clock.set(E + 62_000_000);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
        clock.set(E + 63_000_000);
        Decision full = limiter.tryAcquire("k");
        assertThat(full.allowed()).isTrue();
        assertThat(full.limit()).isEqualTo(10);
        assertThat(full.remaining()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLongIdleKeyIsLikeANewOne(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 5).allowed()).isTrue();
        clock.advance(Duration.ofDays(30));
        Decision d = limiter.tryAcquire("k");
        assertThat(d).isEqualTo(new Decision(true, 5, 4, Duration.ofMillis(9_750), Duration.ZERO));
        if (backend == Backend.REDIS) {
            assertThat(TestRedisSupport.shared().opsForHash().size(redisKey(limiter))).as("the old count was deleted").isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aClockGoingBackwardsStandsStillInTheNewestSubWindow(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        clock.set(E + 2_250_000);
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue(); // [2 s, 3 s)
        clock.set(E + 5_250_000);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue(); // [5 s, 6 s)

        // Back to 1.25 s: the current sub-window stays [5 s, 6 s), so both counts are live; they leave
        // at 12 s and 15 s, measured from 1.25 s.
        clock.set(E + 1_250_000);
        Decision back = limiter.tryAcquire("k");
        assertThat(back).isEqualTo(new Decision(false, 5, 0, Duration.ofMillis(13_750), Duration.ofMillis(10_750), Duration.ZERO,
                FIVE_PER_10S));

        clock.set(E + 12_250_000);
        assertThat(limiter.tryAcquire("k", 2).allowed()).as("[2 s, 3 s) has left").isTrue(); // [12 s, 13 s)
        // Back again: [5 s, 6 s) leaves at 15 s, [12 s, 13 s) at 22 s.
        clock.set(E + 11_250_000);
        assertThat(limiter.tryAcquire("k")).isEqualTo(new Decision(false, 5, 0, Duration.ofMillis(10_750), Duration.ofMillis(3_750),
                Duration.ZERO, FIVE_PER_10S));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aPermitTakenWhileTheClockIsBehindGoesIntoTheNewestSubWindow(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        clock.set(E + 5_250_000);
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue(); // [5 s, 6 s)
        clock.set(E + 2_250_000);
        Decision behind = limiter.tryAcquire("k", 3); // counted in [5 s, 6 s) too, not in [2 s, 3 s)
        assertThat(behind.allowed()).isTrue();
        assertThat(behind.remaining()).isZero();
        assertThat(behind.resetAfter()).as("until [5 s, 6 s) leaves at 15 s").isEqualTo(Duration.ofMillis(12_750));
        if (backend == Backend.REDIS) {
            assertThat(TestRedisSupport.shared().opsForHash().entries(redisKey(limiter))).as("one field for all five")
                .isEqualTo(java.util.Map.of("1:" + (E / SECOND + 5), "5"));
        }

        clock.set(E + 12_000_000);
        Decision notYet = limiter.tryAcquire("k");
        assertThat(notYet.allowed()).as("nothing leaves at 12 s").isFalse();
        assertThat(notYet.retryAfter()).isEqualTo(Duration.ofSeconds(3));
        clock.set(E + 15_000_000 - 1);
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(micros(1));
        clock.advanceMicros(1);
        assertThat(limiter.tryAcquire("k", 5).allowed()).as("all five left with [5 s, 6 s) at 15 s").isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRejectedCallForgetsNothingSoASubWindowCountsAgainWhenTheClockGoesBack(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        clock.set(E + 3_250_000);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue(); // [3 s, 4 s)
        clock.set(E + 8_250_000);
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue(); // [8 s, 9 s)

        // At 13.25 s, [3 s, 4 s) has left: 2 permits count, and 4 more wait for [8 s, 9 s) to leave at 18 s.
        clock.set(E + 13_250_000);
        assertThat(limiter.tryAcquire("k", 4)).isEqualTo(new Decision(false, 5, 3, Duration.ofMillis(4_750), Duration.ofMillis(4_750),
                Duration.ZERO, FIVE_PER_10S));
        if (backend == Backend.REDIS) {
            assertThat(TestRedisSupport.shared().opsForHash().size(redisKey(limiter))).as("a rejected call deletes no field").isEqualTo(2);
        }
        // Back to 12.5 s, before [3 s, 4 s) left: it counts again, until 13 s.
        clock.set(E + 12_500_000);
        assertThat(limiter.tryAcquire("k")).isEqualTo(new Decision(false, 5, 0, Duration.ofMillis(5_500), Duration.ofMillis(500),
                Duration.ZERO, FIVE_PER_10S));
        // An admitted call deletes what has left at its time: from [8 s, 9 s) on, nothing can count [3 s, 4 s) again.
        clock.set(E + 13_250_000);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(new Decision(true, 5, 0, Duration.ofMillis(9_750), Duration.ZERO));
        if (backend == Backend.REDIS) {
            assertThat(TestRedisSupport.shared().opsForHash().size(redisKey(limiter))).isEqualTo(2);
        }
        clock.set(E + 12_500_000);
        assertThat(limiter.tryAcquire("k")).as("the current sub-window is [13 s, 14 s) now")
            .isEqualTo(new Decision(false, 5, 0, Duration.ofMillis(10_500), Duration.ofMillis(5_500), Duration.ZERO, FIVE_PER_10S));
    }

    @Test
    void staleSubWindowsAreDeletedSoACallReadsOnlyLiveOnes() {
        StringRedisTemplate redis = TestRedisSupport.shared();
        RateLimiter limiter = limiter(Backend.REDIS, LimitSpec.of(20, Duration.ofSeconds(10)), LimitSpec.of(100, Duration.ofMinutes(1)));
        String key = redisKey(limiter);
        long most = 0;
        for (int i = 0; i < 600; i++) { // a call every 300 ms for 3 minutes
            limiter.tryAcquire("k");
            most = Math.max(most, redis.opsForHash().size(key));
            clock.advance(Duration.ofMillis(300));
        }
        assertThat(most).as("at most N live sub-windows per limit").isLessThanOrEqualTo(2 * 10);
        assertThat(most).isGreaterThanOrEqualTo(15);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void belowOnePerSecond(Backend backend) {
        LimitSpec onePerHour = LimitSpec.of(1, Duration.ofHours(1));
        RateLimiter limiter = limiter(backend, RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, onePerHour).withSubWindows(60));
        Decision first = limiter.tryAcquire("k");
        // Sub-windows of one minute: the minute [0, 60 s) leaves at 1 h.
        assertThat(first.resetAfter()).isEqualTo(Duration.ofHours(1).minusMillis(3_250));
        Decision second = limiter.tryAcquire("k");
        assertThat(second.retryAfter()).isEqualTo(first.resetAfter());

        clock.advance(second.retryAfter().minus(micros(1)));
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(micros(1));
        clock.advanceMicros(1);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void largestLimitWindowAndSubWindowCount(Backend backend) {
        LimitSpec largest = LimitSpec.of(LimitSpec.MAX_LIMIT, LimitSpec.MAX_WINDOW);
        // 366 days in 1464 sub-windows of 6 h; 2^31 - 1 permits spread over 1000 of them.
        RateLimiter limiter = limiter(backend, RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, largest).withSubWindows(1464));
        long each = LimitSpec.MAX_LIMIT / 1000;
        for (int i = 0; i < 1000; i++) {
            assertThat(limiter.tryAcquire("k", each).allowed()).isTrue();
            clock.advance(Duration.ofHours(6));
        }
        Decision d = limiter.tryAcquire("k", LimitSpec.MAX_LIMIT - 1000 * each + 1);
        assertThat(d.allowed()).isFalse();
        // The first sub-window, [0, 6 h) of the start day, leaves 366 days after it began.
        long start = E + 3_250_000;
        long firstSub = start - Math.floorMod(start, 6 * 3_600 * SECOND);
        assertThat(d.retryAfter()).isEqualTo(micros(firstSub + LimitSpec.MAX_WINDOW.toNanos() / 1_000 - clock.nowMicros()));
        assertThat(d.remaining()).isEqualTo(LimitSpec.MAX_LIMIT - 1000 * each);
    }

    @Test
    void redisTtlIsTheResetAfterRoundedUpToMilliseconds() {
        StringRedisTemplate redis = TestRedisSupport.shared();
        RedisRateLimiter limiter = (RedisRateLimiter) limiter(Backend.REDIS, FIVE_PER_10S);
        for (String key : List.of("a", "b")) {
            clock.set(E + 3_250_000);
            assertTtlFits(redis, limiter.redisKey(key), limiter.tryAcquire(key)); // [3 s, 4 s)
            clock.set(E + 8_250_000);
            assertTtlFits(redis, limiter.redisKey(key), limiter.tryAcquire(key, 4)); // [8 s, 9 s)
        }
        // A rejected call changes nothing, not the field of [3 s, 4 s), which has left (the clock may
        // still go back), nor the TTL of the last admitted call: until [8 s, 9 s) leaves at 18 s.
        clock.set(E + 13_250_000);
        Decision rejected = limiter.tryAcquire("a", 2);
        assertThat(rejected.allowed()).isFalse();
        assertThat(redis.opsForHash().size(limiter.redisKey("a"))).isEqualTo(2);
        assertThat(TestRedisSupport.pttl(redis, limiter.redisKey("a"))).isLessThanOrEqualTo(9_750).isGreaterThan(9_750 - 2_000);
        // An admitted call deletes it and renews the TTL for what is left: until [13 s, 14 s) leaves.
        Decision admitted = limiter.tryAcquire("a");
        assertThat(admitted.resetAfter()).isEqualTo(Duration.ofMillis(9_750));
        assertThat(redis.opsForHash().size(limiter.redisKey("a"))).isEqualTo(2);
        assertTtlFits(redis, limiter.redisKey("a"), admitted);

        // Admitted 300 us before its only sub-window leaves, the TTL rounds up to 1 ms rather than down to none.
        RedisRateLimiter oneSecond = (RedisRateLimiter) limiter(Backend.REDIS,
                RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, LimitSpec.of(5, Duration.ofSeconds(1))).withSubWindows(1));
        clock.set(E + 19_000_000 - 300);
        assertThat(oneSecond.tryAcquire("b", 2).resetAfter()).isEqualTo(micros(300));
        // Read back a moment later in real time: 1 or 0 ms left, or gone (-1 would mean no TTL at all).
        assertThat(TestRedisSupport.pttl(redis, oneSecond.redisKey("b"))).isBetween(-2L, 1L).isNotEqualTo(-1L);
    }

    static void assertTtlFits(StringRedisTemplate redis, String key, Decision d) {
        long needMillis = (d.resetAfter().toNanos() + 999_999) / 1_000_000;
        assertThat(TestRedisSupport.pttl(redis, key)).as("PTTL of %s for resetAfter %s", key, d.resetAfter())
            .isPositive()
            .isLessThanOrEqualTo(Math.max(1, needMillis))
            .isGreaterThan(needMillis - 2_000);
    }

    static String redisKey(RateLimiter limiter) {
        return ((RedisRateLimiter) limiter).redisKey("k");
    }
}
