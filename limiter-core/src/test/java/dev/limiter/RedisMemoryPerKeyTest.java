package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * What one active key costs in Redis ({@code MEMORY USAGE ... SAMPLES 0}: every element counted),
 * for 100 permits per minute. The table is printed so the numbers can be quoted; the bounds only
 * catch a layout that grows out of proportion.
 */
class RedisMemoryPerKeyTest {

    static final LimitSpec HUNDRED_PER_MINUTE = LimitSpec.of(100, Duration.ofMinutes(1));

    final VirtualClock clock = new VirtualClock(SlidingWindowTest.E + 250_000);

    final String prefix = TestRedisSupport.uniquePrefix();

    final StringRedisTemplate redis = TestRedisSupport.shared();

    static final RedisScript<Long> MEMORY_USAGE = RedisScript.of("return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')",
            Long.class);

    final Map<String, Long> table = new LinkedHashMap<>();

    /** Bytes of the key after {@code calls} calls of one permit, {@code stepMillis} apart. */
    long measure(String row, RateLimiterConfig config, int calls, long stepMillis) {
        RedisRateLimiter limiter = (RedisRateLimiter) Backend.REDIS.factory(clock, prefix).create("m" + table.size(), config);
        for (int i = 0; i < calls; i++) {
            assertThat(limiter.tryAcquire("user-1234").allowed()).isTrue();
            clock.advance(Duration.ofMillis(stepMillis));
        }
        String key = limiter.redisKey("user-1234");
        Long bytes = redis.execute(MEMORY_USAGE, List.of(key));
        table.put(row + " (key of " + key.length() + " bytes)", bytes);
        return bytes;
    }

    @Test
    void memoryOfOneActiveKey() {
        RateLimiterConfig fixed = RateLimiterConfig.of(Algorithm.FIXED_WINDOW, HUNDRED_PER_MINUTE);
        RateLimiterConfig token = RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, HUNDRED_PER_MINUTE);
        RateLimiterConfig window = RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, HUNDRED_PER_MINUTE);
        RateLimiterConfig log = RateLimiterConfig.of(Algorithm.SLIDING_LOG, HUNDRED_PER_MINUTE);

        measure("fixed-window, 10 requests", fixed, 10, 100);
        measure("token-bucket, 10 requests", token, 10, 100);
        long oneField = measure("sliding-window N=10, 10 requests in 1 sub-window", window, 10, 100);
        long tenFields = measure("sliding-window N=10, 10 requests in 10 sub-windows", window, 10, 6_000);
        measure("sliding-window N=60, 60 requests in 60 sub-windows", window.withSubWindows(60), 60, 1_000);
        long tenEntries = measure("sliding-log, 10 requests", log, 10, 100);
        long hundredEntries = measure("sliding-log, 100 requests", log, 100, 100);
        measure("sliding-log 1000/min, 1000 requests", RateLimiterConfig.of(Algorithm.SLIDING_LOG, LimitSpec.of(1_000,
                Duration.ofMinutes(1))), 1_000, 10);

        table.forEach((row, bytes) -> System.out.printf("MEMORY USAGE %-75s %7d bytes%n", row, bytes));
        assertThat(oneField).isLessThan(200);
        assertThat(tenFields).isLessThan(400);
        assertThat(tenEntries).isLessThan(600);
        assertThat(hundredEntries).isLessThan(4_000);
    }
}
