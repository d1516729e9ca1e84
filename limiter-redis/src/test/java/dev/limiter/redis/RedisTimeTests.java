package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.test.RedisTest;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Without an explicit clock the scripts take time from Redis TIME, as they do in production. */
@RedisTest
class RedisTimeTests {

    @Test
    void tokenBucketOnRedisTime() {
        StringRedisTemplate redis = TestRedisSupport.shared();
        RedisRateLimiter limiter = (RedisRateLimiter) RedisRateLimiterFactory.builder(redis)
            .keyPrefix(TestRedisSupport.uniquePrefix()).build()
            .create("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofHours(1)));
        for (int i = 0; i < 5; i++) {
            Decision d = limiter.tryAcquire("k");
            assertThat(d.allowed()).as("call %d", i + 1).isTrue();
            assertThat(d.remaining()).isEqualTo(4 - i);
        }
        Decision sixth = limiter.tryAcquire("k");
        assertThat(sixth.allowed()).isFalse();
        // One token per 12 minutes; real time passed since the fifth call only shortens the wait.
        assertThat(sixth.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(12))
            .isGreaterThan(Duration.ofMinutes(11));

        // The state's timestamp is Redis's own time, in microseconds.
        long redisNow = redis.execute((RedisCallback<Long>) c -> c.serverCommands().time(TimeUnit.MICROSECONDS));
        long ts = BucketRedisStateTests.doubles(redis, limiter.redisKey("k")).get(0);
        assertThat(ts).isBetween(redisNow - 60_000_000L, redisNow);
        assertThat(TestRedisSupport.pttl(redis, limiter.redisKey("k"))).isPositive()
            .isLessThanOrEqualTo(Duration.ofHours(1).toMillis());
    }
}
