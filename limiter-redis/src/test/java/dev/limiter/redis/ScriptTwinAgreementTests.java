package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RetunePolicy;
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
class ScriptTwinAgreementTests {

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

    /**
     * Retuned with on-retune keep every 40 steps to other limits, bursts and max-wait of the same shape
     * (one key's state then written under other numbers than it is read by), both backends still
     * decide alike: the script and the twin read a foreign state alike.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void randomHistoryRetunedWithKeepGivesEqualDecisions(Algorithm algorithm) {
        List<RateLimiterConfig> configs = retunes(algorithm, List.of(List.of(SPEC), List.of(LimitSpec.of(3, Duration.ofSeconds(10)).withBurst(12)),
                List.of(LimitSpec.of(11, Duration.ofSeconds(10)).withBurst(2))));
        int[] outcomes = replay(algorithm, 5L, 1_500_000, configs);
        assertThat(outcomes[0]).as("allowed").isGreaterThan(50);
        assertThat(outcomes[1]).as("rejected").isGreaterThan(50);
    }

    /** The same with two limits, so that each limit's state is read under its own new numbers. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void randomHistoryOfSeveralLimitsRetunedWithKeepGivesEqualDecisions(Algorithm algorithm) {
        List<RateLimiterConfig> configs = retunes(algorithm, List.of(
                List.of(SPEC, LimitSpec.of(20, Duration.ofMinutes(1))),
                List.of(LimitSpec.of(3, Duration.ofSeconds(10)).withBurst(5), LimitSpec.of(50, Duration.ofMinutes(1)).withBurst(60)),
                List.of(LimitSpec.of(13, Duration.ofSeconds(10)).withBurst(4), LimitSpec.of(17, Duration.ofMinutes(1)))));
        int[] outcomes = replay(algorithm, 6L, 1_500_000, configs);
        assertThat(outcomes[0]).as("allowed").isGreaterThan(50);
        assertThat(outcomes[1]).as("rejected").isGreaterThan(50);
    }

    /** Configurations of {@code algorithm} with these limits (bursts only for buckets), kept on retune; buckets alternately wait. */
    private static List<RateLimiterConfig> retunes(Algorithm algorithm, List<List<LimitSpec>> limits) {
        return limits.stream().map(specs -> {
            RateLimiterConfig.Builder builder = RateLimiterConfig.builder(algorithm).onRetune(RetunePolicy.KEEP);
            specs.forEach(spec -> builder.limit(algorithm.isBucket() ? spec : LimitSpec.of(spec.limit(), spec.window())));
            if (algorithm.isBucket() && limits.indexOf(specs) == 1) {
                builder.maxWait(Duration.ofSeconds(2));
            }
            return builder.build();
        }).toList();
    }

    /** Runs 500 random steps on both backends and returns {allowed, rejected}. */
    private static int[] replay(Algorithm algorithm, long seed, int maxAdvanceMicros) {
        return replay(algorithm, seed, maxAdvanceMicros, List.of(RateLimiterConfig.of(algorithm, SPEC)));
    }

    /**
     * Runs 500 random steps on both backends, retuned to the next of {@code configs} every 40, and
     * returns {allowed, rejected}. A key's state expires when it is idle by the limits it was written
     * under: in memory on the virtual clock, in Redis in real time, by its TTL. Once retuned, an expired
     * state and the stored one no longer mean the same, so the Redis key is deleted when the virtual
     * clock passes its TTL, as a Redis running on that clock would.
     */
    private static int[] replay(Algorithm algorithm, long seed, int maxAdvanceMicros, List<RateLimiterConfig> configs) {
        // A start that is not window-aligned, so window ends fall between steps.
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);
        RedisRateLimiter redis = (RedisRateLimiter) Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix())
            .create("agree", configs.get(0));
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("agree", configs.get(0));
        Map<String, Long> expiresAt = new HashMap<>();
        Random random = new Random(seed); // fixed seed: a failure replays exactly
        int[] outcomes = new int[2];
        for (int step = 0; step < 500; step++) {
            if (step > 0 && step % 40 == 0) {
                RateLimiterConfig next = configs.get((step / 40) % configs.size());
                assertThat(redis.retune(next).stateKept()).isEqualTo(memory.retune(next).stateKept());
            }
            clock.advanceMicros(random.nextInt(maxAdvanceMicros + 1));
            String key = KEYS[random.nextInt(KEYS.length)];
            long cost = 1 + random.nextInt(3);
            Long expires = expiresAt.get(redis.redisKey(key));
            if (expires != null && clock.nowMicros() >= expires) {
                TestRedisSupport.shared().delete(redis.redisKey(key));
            }
            Decision fromRedis = redis.tryAcquire(key, cost);
            Decision fromMemory = memory.tryAcquire(key, cost);
            String where = "step " + step + " at " + clock.nowMicros() + " us, key " + key + ", cost " + cost;
            assertEquals(fromRedis, fromMemory, where);
            if (fromRedis.allowed()) {
                // Every admitted request writes the state and sets its TTL to the reset-after.
                expiresAt.put(redis.redisKey(key), clock.nowMicros() + fromRedis.resetAfter().toNanos() / 1_000);
            }
            outcomes[fromRedis.allowed() ? 0 : 1]++;
        }
        return outcomes;
    }
}
