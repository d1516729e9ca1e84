package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.algorithm.Model;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each refund script, its twin's refund and the reference model (written from docs/algorithms.md
 * alone) give the very same quota, and leave states that decide alike, for random histories of
 * decisions and refunds: two limits at fractional rates (7 per 10 s with
 * a burst of 9, 20 per minute), and, for buckets, callers waiting (debt) too. As
 * {@link ScriptTwinAgreementTests} does for decisions.
 */
@RedisTest
class RefundAgreementTests {

    static final String[] KEYS = { "alice", "bob", "carol" };

    static RateLimiterConfig config(Algorithm algorithm, boolean waiting) {
        RateLimiterConfig.Builder builder = RateLimiterConfig.builder(algorithm)
            .limit(algorithm.isBucket() ? LimitSpec.of(7, Duration.ofSeconds(10)).withBurst(9) : LimitSpec.of(7, Duration.ofSeconds(10)))
            .limit(LimitSpec.of(20, Duration.ofMinutes(1)));
        if (waiting && algorithm.isBucket()) {
            builder.maxWait(Duration.ofSeconds(3));
        }
        return builder.build();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void randomHistoryOfDecisionsAndRefundsGivesEqualAnswers(Algorithm algorithm) {
        int[] counts = replay(config(algorithm, false), 20261125L, 2_000_000);
        assertThat(counts[0]).as("refunds that gave something back").isGreaterThan(30);
        assertThat(counts[1]).as("rejected").isGreaterThan(20);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void busyRandomHistoryWithWaitingCallersGivesEqualAnswers(Algorithm algorithm) {
        int[] counts = replay(config(algorithm, true), 11L, 300_000);
        assertThat(counts[0]).as("refunds that gave something back").isGreaterThan(30);
        assertThat(counts[1]).as("rejected").isGreaterThan(20);
    }

    /** 600 random steps on both backends: decisions, refunds (one in three) and quota reads; returns {refunds that changed, rejected}. */
    private static int[] replay(RateLimiterConfig config, long seed, int maxAdvanceMicros) {
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);
        RedisRateLimiter redis = (RedisRateLimiter) Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("agree", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("agree", config);
        Model model = Model.of(config);
        Map<String, Long> expiresAt = new HashMap<>();
        Random random = new Random(seed); // fixed seed: a failure replays exactly
        int[] counts = new int[2];
        for (int step = 0; step < 600; step++) {
            clock.advanceMicros(random.nextInt(maxAdvanceMicros + 1));
            String key = KEYS[random.nextInt(KEYS.length)];
            String redisKey = redis.redisKey(key);
            Long expires = expiresAt.get(redisKey);
            if (expires != null && clock.nowMicros() >= expires) {
                // The TTL runs in real time; on the virtual clock the key is gone now.
                TestRedisSupport.shared().delete(redisKey);
            }
            long permits = 1 + random.nextInt(4);
            String where = "step " + step + " at " + clock.nowMicros() + " us, key " + key + ", permits " + permits;
            long resetAfter;
            if (random.nextInt(3) == 0) {
                Quota before = memory.quota(key);
                Quota fromRedis = redis.refund(key, permits);
                Quota fromMemory = memory.refund(key, permits);
                assertEquals(fromRedis.limit(), fromMemory.limit(), where);
                assertEquals(fromRedis.remaining(), fromMemory.remaining(), where);
                assertEquals(fromRedis.resetAfter(), fromMemory.resetAfter(), where);
                Quota fromModel = model.refund(key, permits, clock.nowMicros());
                assertEquals(fromModel.limit(), fromMemory.limit(), "model, " + where);
                assertEquals(fromModel.remaining(), fromMemory.remaining(), "model, " + where);
                assertEquals(fromModel.resetAfter(), fromMemory.resetAfter(), "model, " + where);
                if (!fromMemory.equals(before)) {
                    counts[0]++;
                }
                resetAfter = fromRedis.resetAfter().toNanos() / 1_000;
                if (resetAfter > 0) {
                    long ttl = TestRedisSupport.pttl(TestRedisSupport.shared(), redisKey);
                    assertThat(ttl).as("PTTL after a refund, " + where).isBetween(0L, (resetAfter + 999) / 1_000);
                }
            }
            else {
                Decision fromRedis = redis.tryAcquire(key, permits);
                Decision fromMemory = memory.tryAcquire(key, permits);
                assertEquals(fromRedis, fromMemory, where);
                assertEquals(model.tryAcquire(key, permits, clock.nowMicros()), fromMemory, "model, " + where);
                counts[1] += fromRedis.allowed() ? 0 : 1;
                resetAfter = fromRedis.allowed() ? fromRedis.resetAfter().toNanos() / 1_000 : 0;
            }
            if (resetAfter > 0) {
                expiresAt.put(redisKey, clock.nowMicros() + resetAfter);
            }
            assertEquals(redis.quota(key).remaining(), memory.quota(key).remaining(), where + ", quota after");
            assertEquals(model.quota(key, clock.nowMicros()), memory.quota(key), "model, " + where + ", quota after");
        }
        return counts;
    }
}
