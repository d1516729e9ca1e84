package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Specs at the edges of what {@link LimitSpec} accepts: the scripts compute in Lua doubles and Redis
 * turns replies into 64-bit integers, so large products of window and burst are where script and
 * twin could part ways.
 */
@RedisTest
class ExtremeSpecTests {

    final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);

    final String prefix = TestRedisSupport.uniquePrefix();

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void largestLimitAndWindowAgreeAcrossBackends(Algorithm algorithm) {
        // Only states that stay relevant for seconds: Redis TTLs run in real time, so a key meant to live
        // a millisecond would expire in Redis while the virtual clock stands still.
        for (LimitSpec spec : List.of(LimitSpec.of(LimitSpec.MAX_LIMIT, LimitSpec.MAX_WINDOW),
                LimitSpec.of(1, LimitSpec.MAX_WINDOW), new LimitSpec(1_000, Duration.ofDays(1), 100_000))) {
            String name = "edge" + Math.abs(spec.hashCode());
            RateLimiter redis = Backend.REDIS.factory(clock, prefix).create(name, algorithm, spec);
            RateLimiter memory = Backend.MEMORY.factory(clock, prefix).create(name, algorithm, spec);
            long capacity = algorithm.capacity(spec);
            for (long cost : new long[] { capacity, 1, capacity + 1, 1 }) {
                assertEquals(redis.tryAcquire("k", cost), memory.tryAcquire("k", cost), spec + " cost " + cost);
            }
            clock.advance(Duration.ofSeconds(1));
            assertEquals(redis.tryAcquire("k"), memory.tryAcquire("k"), spec + " a second later");
        }
    }

    @Test
    void aBucketThatWouldTakeLongerThanTheLongestWindowToRefillIsRejected() {
        // 2^31-1 tokens at 1 per 366 days: the refill time overflowed PEXPIRE and Redis deleted the key.
        assertThatThrownBy(() -> new LimitSpec(1, LimitSpec.MAX_WINDOW, LimitSpec.MAX_LIMIT))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("to refill");
    }

    @Test
    void theSlowestRefillAcceptedKeepsItsStateInRedis() {
        // Exactly 366 days to refill an empty bucket: the largest refill time LimitSpec accepts.
        LimitSpec spec = new LimitSpec(1_000, Duration.ofDays(1), 366_000);
        RedisRateLimiter redis = (RedisRateLimiter) Backend.REDIS.factory(clock, prefix).create("slow", Algorithm.TOKEN_BUCKET, spec);
        RateLimiter memory = Backend.MEMORY.factory(clock, prefix).create("slow", Algorithm.TOKEN_BUCKET, spec);

        Decision takeAll = redis.tryAcquire("k", spec.burst());
        assertThat(takeAll.allowed()).isTrue();
        assertThat(takeAll.resetAfter()).isEqualTo(Duration.ofDays(366));
        assertThat(TestRedisSupport.pttl(TestRedisSupport.shared(), redis.redisKey("k")))
            .as("the emptied bucket stays in Redis until it is full again")
            .isCloseTo(Duration.ofDays(366).toMillis(), org.assertj.core.data.Offset.offset(10_000L));
        assertEquals(memory.tryAcquire("k", spec.burst()), takeAll);

        Decision next = redis.tryAcquire("k");
        assertThat(next.allowed()).as("a call right after emptying the bucket").isFalse();
        assertEquals(memory.tryAcquire("k"), next);
    }
}
