package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What the bucket scripts leave in Redis: a few whole numbers per key (one string of doubles), with a TTL of exactly reset-after rounded up to the millisecond, and nothing at all for a rejected
 * request.
 */
@RedisTest
class BucketRedisStateTests {

    /** Redis counts TTLs in real time: allow for the time between the script and the PTTL that reads it. */
    static final long SLACK_MILLIS = 50;

    final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);

    final StringRedisTemplate redis = TestRedisSupport.shared();

    final RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(redis).keyPrefix(TestRedisSupport.uniquePrefix())
        .clock(clock).build();

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void theKeyLivesExactlyUntilEveryLimitIsWholeAgain(Algorithm algorithm) {
        // One permit per 10/3 s: reset-after is a fraction of a millisecond above a whole one.
        RedisRateLimiter limiter = limiter("ttl", RateLimiterConfig.of(algorithm, LimitSpec.of(3, Duration.ofSeconds(10))));
        assertTtl(limiter, "k", limiter.tryAcquire("k"), 3_334);
        assertTtl(limiter, "k", limiter.tryAcquire("k"), 6_667);
        clock.advanceMicros(1_234_567);
        Decision drained = limiter.tryAcquire("k");
        // 2 - 1234567 * 3 / 10^7 + 1 = 2.6296299 permits: 8,765,433 us.
        assertThat(drained.resetAfter()).isEqualTo(Duration.ofNanos(8_765_433_000L));
        assertTtl(limiter, "k", drained, 8_766);

        // Several limits: the one that takes longest to be whole again.
        RedisRateLimiter several = limiter("several", RateLimiterConfig.of(algorithm, LimitSpec.of(3, Duration.ofSeconds(1)),
                LimitSpec.of(10, Duration.ofMinutes(1))));
        assertTtl(several, "k", several.tryAcquire("k", 2), 12_000);

        // In debt: until the debt is paid back and the bucket is whole.
        RedisRateLimiter waiting = limiter("waiting",
                RateLimiterConfig.of(algorithm, LimitSpec.of(5, Duration.ofSeconds(10))).withMaxWait(Duration.ofSeconds(5)));
        waiting.tryAcquire("k", 5);
        Decision inDebt = waiting.tryAcquire("k", 2);
        assertThat(inDebt.waitFor()).isEqualTo(Duration.ofSeconds(4));
        assertTtl(waiting, "k", inDebt, 14_000);

        // The slowest refill accepted: 360 days.
        RedisRateLimiter monthly = limiter("monthly", RateLimiterConfig.of(algorithm, new LimitSpec(1, Duration.ofDays(30), 12)));
        assertTtl(monthly, "k", monthly.tryAcquire("k", 12), Duration.ofDays(360).toMillis());

        // A rate so high that one permit is back within a microsecond: at least 1 ms, never 0 (no expiry).
        RedisRateLimiter fast = limiter("fast", RateLimiterConfig.of(algorithm, LimitSpec.of(LimitSpec.MAX_LIMIT, Duration.ofSeconds(1))));
        Decision tiny = fast.tryAcquire("k");
        assertThat(tiny.resetAfter()).isEqualTo(Duration.ofNanos(1_000));
        long pttl = TestRedisSupport.pttl(redis, fast.redisKey("k"));
        assertThat(pttl).as("PTTL after a 1 us reset-after").isIn(1L, 0L, -2L); // -2: already expired, as it should
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void aRejectedRequestWritesNothing(Algorithm algorithm) {
        RedisRateLimiter limiter = limiter("rejected", RateLimiterConfig.of(algorithm, LimitSpec.of(5, Duration.ofMinutes(1))));
        limiter.tryAcquire("k", 5);
        String before = state(limiter.redisKey("k"));
        long ttlBefore = TestRedisSupport.pttl(redis, limiter.redisKey("k"));
        clock.advance(Duration.ofSeconds(3));
        assertThat(limiter.tryAcquire("k", 2).allowed()).isFalse();
        assertThat(limiter.tryAcquire("k", 6).neverAllowed()).isTrue();
        assertThat(state(limiter.redisKey("k"))).isEqualTo(before);
        assertThat(TestRedisSupport.pttl(redis, limiter.redisKey("k"))).as("not renewed").isLessThanOrEqualTo(ttlBefore);

        assertThat(limiter.tryAcquire("never-allowed", 6).neverAllowed()).isTrue();
        assertThat(TestRedisSupport.exists(redis, limiter.redisKey("never-allowed"))).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void theStateIsOneTimeAndAWholeNumberWithAFractionPerLimit(Algorithm algorithm) {
        RedisRateLimiter limiter = limiter("layout", RateLimiterConfig.of(algorithm, LimitSpec.of(3, Duration.ofSeconds(10)),
                LimitSpec.of(7, Duration.ofMinutes(1))));
        limiter.tryAcquire("k");
        clock.advanceMicros(1_000_001);
        limiter.tryAcquire("k");
        if (algorithm == Algorithm.GCRA) {
            // One string of doubles t, a1, f1, l1, a2, f2, l2. tau = t0 + 2 * 10^7 / 3 = t0 + 6666666 + 2/3
            // and t0 + 2 * 6*10^7 / 7 = t0 + 17142857 + 1/7; the fractions are over each limit, which the
            // state names: a retune may change the limit.
            long t0 = clock.nowMicros() - 1_000_001;
            assertThat(doubles(redis, limiter.redisKey("k"))).containsExactly(clock.nowMicros(), t0 + 6_666_666, 2L, 3L, t0 + 17_142_857, 1L, 7L);
        }
        else if (algorithm == Algorithm.LEAKY_BUCKET) {
            // One string of doubles t, v1, f1, v2, f2: 1 - 1000001 * 3 / 10^7 + 1 = 1 + 6999997/10^7 permits;
            // 1 - 1000001 * 7 / 6*10^7 + 1 = 1 + 52999993/6*10^7.
            assertThat(doubles(redis, limiter.redisKey("k"))).containsExactly(clock.nowMicros(), 1L, 6_999_997L, 1L, 52_999_993L);
        }
        else {
            // One string of doubles t, x1, f1, x2, f2: 3 - 1 + 1000001 * 3 / 10^7 - 1 = 1 + 3000003/10^7 tokens;
            // 7 - 1 + 1000001 * 7 / 6*10^7 - 1 = 5 + 7000007/6*10^7.
            assertThat(doubles(redis, limiter.redisKey("k"))).containsExactly(clock.nowMicros(), 1L, 3_000_003L, 5L, 7_000_007L);
        }
    }

    /** The key's state as stored: one string (its bytes, in hex). */
    private String state(String key) {
        byte[] value = redis.execute((RedisCallback<byte[]>) connection -> connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8)));
        return (value != null) ? HexFormat.of().formatHex(value) : null;
    }

    /** A bucket's state: the whole numbers its doubles hold, little-endian, as the bucket scripts pack them. */
    static List<Long> doubles(StringRedisTemplate redis, String key) {
        byte[] value = redis.execute((RedisCallback<byte[]>) connection -> connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8)));
        assertThat(value).isNotNull();
        ByteBuffer doubles = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        List<Long> numbers = new ArrayList<>();
        while (doubles.hasRemaining()) {
            double number = doubles.getDouble();
            assertThat(number).as("a whole number").isEqualTo(Math.rint(number));
            numbers.add((long) number);
        }
        return numbers;
    }

    private RedisRateLimiter limiter(String name, RateLimiterConfig config) {
        return (RedisRateLimiter) factory.create(name, config);
    }

    private void assertTtl(RedisRateLimiter limiter, String key, Decision decision, long expectedMillis) {
        long resetMicros = decision.resetAfter().toNanos() / 1_000;
        assertThat(ceilDiv(resetMicros, 1_000)).as("ceil(resetAfter) in ms").isEqualTo(expectedMillis);
        assertThat(TestRedisSupport.pttl(redis, limiter.redisKey(key))).as("PTTL for resetAfter %s", decision.resetAfter())
            .isBetween(expectedMillis - SLACK_MILLIS, expectedMillis);
    }

    private static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }
}
