package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
import dev.limiter.internal.algorithm.GcraModel;
import dev.limiter.internal.algorithm.LeakyBucketModel;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bucket algorithms at the edges of what the configuration accepts, where the scripts'
 * whole-number arithmetic comes closest to the 2^53 of Lua doubles: the largest burst, the slowest
 * refill, and the most permits max-wait may lend (the bucket 2^34 deep in debt).
 */
@RedisTest
class BucketExtremesTests {

    static final long MAX = LimitSpec.MAX_LIMIT;

    static Stream<Arguments> extremes() {
        return Stream.of(
                // 2^31-1 per 366 days, a day of waiting: 5.9 million permits lent at most.
                Arguments.of(RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, LimitSpec.of(MAX, LimitSpec.MAX_WINDOW))
                    .withMaxWait(Duration.ofDays(1)), 1L << 22),
                // One permit per microsecond, 2^31-1 deep, lending up to 2^34 minus the burst.
                Arguments.of(RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, new LimitSpec(1, micros(1), MAX))
                    .withMaxWait(micros((1L << 34) - MAX - 1)), MAX),
                // The slowest refill (366 days) with a day of waiting, and a faster limit before it.
                Arguments.of(RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, new LimitSpec(999, Duration.ofHours(1), 1_000),
                        new LimitSpec(1_000, Duration.ofDays(1), 366_000)).withMaxWait(Duration.ofDays(1)), 1_000L));
    }

    @ParameterizedTest
    @MethodSource("extremes")
    void deepestDebtAndLargestNumbersDecideAlikeEverywhere(RateLimiterConfig config, long cost) {
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 987_654_321);
        String prefix = TestRedisSupport.uniquePrefix();
        List<RateLimiter> limiters = new ArrayList<>();
        for (Backend backend : Backend.values()) {
            for (Algorithm algorithm : BucketEquivalenceTests.BUCKETS) {
                limiters.add(backend.factory(clock, prefix).create("edge", BucketEquivalenceTests.withAlgorithm(config, algorithm)));
            }
        }
        LeakyBucketModel leaky = new LeakyBucketModel(config);
        GcraModel gcra = new GcraModel(config);
        long deepestWait = 0;
        for (int round = 0; round < 4; round++) {
            // Empty the bucket, then borrow until max-wait says no. (The first round takes the whole burst
            // at once: a single permit would leave a state Redis expires within milliseconds of real time.)
            String where = config + " round " + round;
            long smallestBurst = config.limits().stream().mapToLong(LimitSpec::burst).min().getAsLong();
            Decision probe = decideEverywhere(limiters, leaky, gcra, clock, (round == 0) ? smallestBurst : 1, where + " probe");
            if (probe.remaining() > 0) {
                assertThat(decideEverywhere(limiters, leaky, gcra, clock, probe.remaining(), where + " empty").waitFor()).isZero();
            }
            Decision decision;
            int calls = 0;
            do {
                decision = decideEverywhere(limiters, leaky, gcra, clock, cost, where + " call " + calls);
                deepestWait = Math.max(deepestWait, decision.waitFor().toNanos() / 1_000);
                calls++;
            }
            while (decision.allowed() && calls < 50);
            assertThat(decision.allowed()).as("max-wait ends the borrowing").isFalse();
            decideEverywhere(limiters, leaky, gcra, clock, MAX, "never, round " + round);
            // Part of the debt paid back, at an odd number of microseconds.
            clock.advanceMicros(decision.resetAfter().toNanos() / 1_000 / 3 + 12_345);
        }
        assertThat(deepestWait).as("deepest wait").isGreaterThan(config.maxWaitMicros() / 2);
    }

    private static Decision decideEverywhere(List<RateLimiter> limiters, LeakyBucketModel leaky, GcraModel gcra, VirtualClock clock,
            long permits, String where) {
        Decision expected = leaky.tryAcquire("k", permits, clock.nowMicros());
        assertEquals(expected, gcra.tryAcquire("k", permits, clock.nowMicros()), "GCRA model, " + where);
        for (RateLimiter limiter : limiters) {
            assertEquals(expected, limiter.tryAcquire("k", permits), limiter + ", " + where);
        }
        return expected;
    }

    private static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }
}
