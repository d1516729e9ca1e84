package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each Lua script and its in-memory twin must give the very same Decision for the same history, so
 * that falling back to memory changes where state lives, not how it is judged. Fractional rates
 * (7 per 10 s) and burst above limit exercise the floating-point paths.
 */
@RedisTest
class ScriptTwinAgreementTest {

    static final LimitSpec SPEC = LimitSpec.of(7, Duration.ofSeconds(10)).withBurst(9);

    static final String[] KEYS = { "alice", "bob", "carol" };

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void randomHistoryGivesEqualDecisions(Algorithm algorithm) {
        int[] outcomes = replay(algorithm, 20240611L, 3_000_000);
        // Both outcomes must occur, or the comparison proves little.
        assertThat(outcomes[0]).as("allowed").isPositive();
        assertThat(outcomes[1]).as("rejected").isPositive();
    }

    /** Steps of at most 0.3 s: mostly an exhausted limit, so the rejection paths are compared at length. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void busyRandomHistoryGivesEqualDecisions(Algorithm algorithm) {
        int[] outcomes = replay(algorithm, 77L, 300_000);
        assertThat(outcomes[0]).as("allowed").isGreaterThan(50);
        assertThat(outcomes[1]).as("rejected").isGreaterThan(50);
    }

    /** Runs 500 random steps on both backends and returns {allowed, rejected}. */
    private static int[] replay(Algorithm algorithm, long seed, int maxAdvanceMicros) {
        // A start that is not window-aligned, so window ends fall between steps.
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);
        RateLimiter redis = Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("agree", algorithm, SPEC);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("agree", algorithm, SPEC);
        Random random = new Random(seed); // fixed seed: a failure replays exactly
        int[] outcomes = new int[2];
        for (int step = 0; step < 500; step++) {
            clock.advanceMicros(random.nextInt(maxAdvanceMicros + 1));
            String key = KEYS[random.nextInt(KEYS.length)];
            long cost = 1 + random.nextInt(3);
            Decision fromRedis = redis.tryAcquire(key, cost);
            Decision fromMemory = memory.tryAcquire(key, cost);
            String where = "step " + step + " at " + clock.nowMicros() + " us, key " + key + ", cost " + cost;
            assertEquals(fromRedis, fromMemory, where);
            outcomes[fromRedis.allowed() ? 0 : 1]++;
        }
        return outcomes;
    }
}
