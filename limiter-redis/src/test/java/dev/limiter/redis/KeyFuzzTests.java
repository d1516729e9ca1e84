package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random key text, from the characters that break naive key builders (braces, '%', ':', control
 * characters, unpaired surrogates, astral code points) and of any length up to a megabyte: every
 * key stays bounded, keeps its hash tag, never collides with another, and works in Redis.
 */
@RedisTest
class KeyFuzzTests {

    /** Characters weighted towards the troublesome ones. */
    private static final String TRICKY = "{}%:%7B%7D%H%u\u0000\n\r\t \u007f\u00a0\u2028\ufeff\ufffd";

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    @ParameterizedTest
    @ValueSource(longs = { 1, 2, 3, 4 })
    void randomKeysStayBoundedDistinctAndInsideTheirHashTag(long seed) {
        Random random = new Random(seed);
        RedisRateLimiter limiter = (RedisRateLimiter) Backend.REDIS.factory(clock, prefix)
            .create("fuzz", Algorithm.FIXED_WINDOW, LimitSpec.of(1, Duration.ofMinutes(1)));
        Map<String, String> originals = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            String key = randomKey(random);
            String escaped = RedisKeys.escape(key);
            String previous = originals.putIfAbsent(escaped, key);
            assertThat(previous == null || previous.equals(key)).as("escape(%s) collides with escape(%s)", quote(key), quote(previous))
                .isTrue();
            String redisKey = limiter.redisKey(key);
            assertThat(redisKey.getBytes(StandardCharsets.UTF_8).length).as("bytes of the Redis key").isLessThan(300);
            int open = redisKey.indexOf('{');
            int close = redisKey.indexOf('}', open);
            assertThat(redisKey.substring(open + 1, close)).as("hash tag").isEqualTo("fuzz:" + escaped);
            assertThat(redisKey.indexOf('{', open + 1)).as("one opening brace").isLessThan(0);
            // A limit of 1 per key: the first call of a new key passes (no other key took its permit),
            // the second is rejected.
            if (previous == null && i % 10 == 0) {
                assertThat(limiter.tryAcquire(key).allowed()).as("first call with %s", quote(key)).isTrue();
                assertThat(limiter.tryAcquire(key).allowed()).isFalse();
                assertThat(TestRedisSupport.pttl(TestRedisSupport.shared(), redisKey)).isPositive();
            }
        }
    }

    private static String randomKey(Random random) {
        int length = switch (random.nextInt(20)) {
            case 0 -> 0;
            case 1 -> 1_000_000 + random.nextInt(50_000);
            case 2, 3, 4, 5 -> 100 + random.nextInt(200);
            default -> random.nextInt(40);
        };
        StringBuilder key = new StringBuilder(length);
        while (key.length() < length) {
            switch (random.nextInt(6)) {
                case 0 -> key.append(TRICKY.charAt(random.nextInt(TRICKY.length())));
                case 1 -> key.append((char) (0xD800 + random.nextInt(0x800))); // any surrogate, often unpaired
                case 2 -> key.appendCodePoint(0x10000 + random.nextInt(0x10FFFF - 0x10000)); // astral
                case 3 -> key.append((char) random.nextInt(0x20)); // control characters
                default -> key.append((char) ('a' + random.nextInt(26)));
            }
        }
        return key.toString();
    }

    private static String quote(String key) {
        if (key == null) {
            return "null";
        }
        return key.length() > 40 ? "<" + key.length() + " chars>" : key.codePoints()
            .collect(StringBuilder::new, (b, c) -> b.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : (char) c),
                    StringBuilder::append)
            .toString();
    }
}
