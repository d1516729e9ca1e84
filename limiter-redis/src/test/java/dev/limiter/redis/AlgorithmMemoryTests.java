package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Measures what one active key costs Redis for each algorithm ({@code MEMORY USAGE}) and how long it
 * lives after a burst (PTTL), with bounds that must hold; the figures go to
 * {@code target/algorithm-memory.md} for the algorithm table of docs/algorithms.md.
 */
@RedisTest
class AlgorithmMemoryTests {

    /** 100 per minute, burst 100, 10 sub-windows: the reference limiter of docs/algorithms.md. */
    static final RateLimiterConfig REFERENCE = RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.of(100, Duration.ofMinutes(1)));

    static final List<String> ROWS = new ArrayList<>();

    /** MEMORY USAGE with every element counted (SAMPLES 0); through a script, whose integer reply the template reads. */
    static final RedisScript<Long> MEMORY_USAGE = RedisScript.of("return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')",
            Long.class);

    final VirtualClock clock = new VirtualClock(1_700_000_040_000_000L);

    final StringRedisTemplate redis = TestRedisSupport.shared();

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void oneKeyStaysSmallAndExpiresWhenIdleAgain(Algorithm algorithm) {
        RateLimiterConfig config = new RateLimiterConfig(algorithm, REFERENCE.limits(), REFERENCE.subWindows(), Duration.ZERO);
        RedisRateLimiter limiter = (RedisRateLimiter) Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("api", config);
        String key = limiter.redisKey("user-42");

        // Ten requests over ten seconds: a typical active key.
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.tryAcquire("user-42").allowed()).isTrue();
            clock.advance(Duration.ofSeconds(1));
        }
        long active = memoryUsage(key);

        // Then a burst that takes everything left.
        Decision burst = limiter.tryAcquire("user-42", 90);
        assertThat(burst.allowed()).isTrue();
        long full = memoryUsage(key);
        long ttl = TestRedisSupport.pttl(redis, key);

        assertThat(ttl).as("TTL after the burst").isPositive().isLessThanOrEqualTo(ceilMillis(burst.resetAfter()))
            .isLessThanOrEqualTo(Duration.ofMinutes(1).toMillis());
        if (algorithm == Algorithm.SLIDING_LOG) {
            // One entry per admitted request (whatever its cost): bounded by the limit, not by traffic.
            assertThat(full).isLessThan(100 * 64 + 512);
        }
        else {
            assertThat(full).as("state independent of traffic").isLessThan(512);
        }
        ROWS.add("| `" + algorithm.configName() + "` | " + active + " | " + full + " | " + ttl + " |");
    }

    private long memoryUsage(String key) {
        Long bytes = redis.execute(MEMORY_USAGE, List.of(key));
        assertThat(bytes).as("MEMORY USAGE of %s", key).isNotNull().isPositive();
        return bytes;
    }

    private static long ceilMillis(Duration duration) {
        return (duration.toNanos() + 999_999) / 1_000_000;
    }

    @AfterAll
    static void writeReport() throws IOException {
        Properties server = TestRedisSupport.shared().execute((RedisCallback<Properties>) c -> c.serverCommands().info("server"));
        List<String> lines = new ArrayList<>();
        lines.add("Redis " + server.getProperty("redis_version") + ", limiter of 100 per minute (burst 100, 10 sub-windows), "
                + "key `limiter:{api:user-42}:<tag>:<config>`");
        lines.add("");
        lines.add("| algorithm | bytes after 10 requests | bytes after 100 | PTTL after 100 (ms) |");
        lines.add("|---|---|---|---|");
        ROWS.stream().sorted().forEach(lines::add);
        Path report = Path.of("target", "algorithm-memory.md");
        Files.createDirectories(report.getParent());
        Files.write(report, lines, StandardCharsets.UTF_8);
    }
}
