package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * User-supplied key text must neither move the Redis Cluster hash tag nor make two keys share state.
 */
@RedisTest
class RedisKeysTests {

    static final String MEGABYTE = "k".repeat(1 << 20);

    /** Keys that differ only in what the escaping touches, plus the shapes that break naive escaping. */
    static List<String> trickyKeys() {
        Set<String> keys = new LinkedHashSet<>();
        keys.add("");
        keys.add("x");
        keys.add("a}b");
        keys.add("a%7Db");
        keys.add("a%257Db");
        keys.add("a{b");
        keys.add("a%7Bb");
        keys.add("{x}");
        keys.add("%7Bx%7D");
        keys.add("{");
        keys.add("}");
        keys.add("}{");
        keys.add("%");
        keys.add("%25");
        keys.add("%%");
        keys.add("x}:fw");
        keys.add("x}:tb");
        keys.add("orders:x");
        keys.add(":");
        keys.add("\u0000");
        keys.add("\u0000\u0000");
        keys.add("\r\n");
        keys.add("\t\u0001\u001f\u007f");
        keys.add("\uD83D\uDE00"); // emoji, a valid surrogate pair
        keys.add("\uD83D"); // lone high surrogate of the same emoji
        keys.add("\uDE00"); // lone low surrogate
        keys.add("\uD800");
        keys.add("\uDC00");
        keys.add("\uDC00\uD800"); // reversed pair: two lone surrogates
        keys.add("?"); // what a lone surrogate becomes if encoded to UTF-8 unescaped
        keys.add("%uD800");
        keys.add("%u");
        keys.add("%H");
        keys.add("%Habc");
        keys.add("k".repeat(RedisKeys.MAX_KEY_BYTES));
        keys.add("k".repeat(RedisKeys.MAX_KEY_BYTES + 1));
        keys.add("{".repeat(RedisKeys.MAX_KEY_BYTES)); // short, but longer than the limit once escaped
        keys.add("{".repeat(RedisKeys.MAX_KEY_BYTES / 3)); // escapes to exactly 126 chars
        keys.add(MEGABYTE);
        keys.add(MEGABYTE + "x"); // differs only at the very end
        keys.add("x" + MEGABYTE.substring(1));
        keys.add("\u4e2d".repeat(42)); // 126 UTF-8 bytes: kept as it is
        keys.add("\u4e2d".repeat(43)); // 129 UTF-8 bytes in 43 chars: digested
        keys.add("\u00e9");
        keys.add("e\u0301"); // the same text as above after Unicode normalization, but another key
        return new ArrayList<>(keys);
    }

    @Test
    void escapeIsInjectiveOnTrickyKeys() {
        Map<String, String> seen = new HashMap<>();
        for (String key : trickyKeys()) {
            String escaped = RedisKeys.escape(key);
            String previous = seen.put(escaped, key);
            assertThat(previous).as("escape(%s) collides with escape(%s)", show(key), show(previous)).isNull();
        }
    }

    @Test
    void escapedKeysCarryNoBracesAndNoLoneSurrogates() {
        for (String key : trickyKeys()) {
            String escaped = RedisKeys.escape(key);
            assertThat(escaped).as(show(key)).doesNotContain("{", "}");
            // Lone surrogates would be sent to Redis as '?', silently merging keys.
            assertThat(new String(escaped.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isEqualTo(escaped);
        }
        assertThat(RedisKeys.escape("plain-key_1.2")).isEqualTo("plain-key_1.2");
        assertThat(RedisKeys.escape("a}b")).isEqualTo("a%7Db");
        assertThatThrownBy(() -> RedisKeys.escape(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void everyKeyHasOneHashTagMadeOfNameAndEscapedKey(Algorithm algorithm) {
        String prefix = TestRedisSupport.uniquePrefix();
        RedisRateLimiter limiter = (RedisRateLimiter) RedisRateLimiterFactory.builder(TestRedisSupport.shared())
            .keyPrefix(prefix).build()
            .create("orders", algorithm, LimitSpec.of(5, Duration.ofSeconds(10)));
        for (String key : trickyKeys()) {
            String redisKey = limiter.redisKey(key);
            assertThat(redisKey).startsWith(prefix + ":");
            assertThat(hashTag(redisKey)).as(show(key)).isEqualTo("orders:" + RedisKeys.escape(key));
            int firstClose = redisKey.indexOf('}');
            assertThat(redisKey.substring(0, firstClose).chars().filter(c -> c == '{').count()).as(show(key)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void everyKeyADecisionWritesSharesTheHashTagOfItsUserKey(Algorithm algorithm) {
        StringRedisTemplate redis = TestRedisSupport.shared();
        VirtualClock clock = new VirtualClock();
        for (String key : trickyKeys()) {
            // One prefix per user key, so SCAN shows exactly what this one decision wrote.
            String prefix = TestRedisSupport.uniquePrefix();
            RedisRateLimiter limiter = (RedisRateLimiter) Backend.REDIS.factory(clock, prefix)
                .create("orders", algorithm, LimitSpec.of(5, Duration.ofSeconds(10)));
            assertThat(limiter.tryAcquire(key).allowed()).isTrue();
            List<String> written = TestRedisSupport.keysUnder(redis, prefix);
            assertThat(written).as(show(key)).containsExactly(limiter.redisKey(key));
            for (String redisKey : written) {
                assertThat(hashTag(redisKey)).isEqualTo(hashTag(limiter.redisKey(key)));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aPlansKeysCarryThePlanInTheirOneHashTagAndATtl(Algorithm algorithm) {
        StringRedisTemplate redis = TestRedisSupport.shared();
        VirtualClock clock = new VirtualClock();
        for (String key : trickyKeys()) {
            String prefix = TestRedisSupport.uniquePrefix();
            RedisRateLimiter pro = (RedisRateLimiter) Backend.REDIS.factory(clock, prefix)
                .create("orders", "pro", RateLimiterConfig.of(algorithm, LimitSpec.of(5, Duration.ofSeconds(10))));
            assertThat(pro.name()).isEqualTo("orders");
            assertThat(hashTag(pro.redisKey(key))).as(show(key)).isEqualTo("orders/pro:" + RedisKeys.escape(key));
            assertThat(pro.tryAcquire(key).allowed()).isTrue();
            List<String> written = TestRedisSupport.keysUnder(redis, prefix);
            assertThat(written).as(show(key)).containsExactly(pro.redisKey(key));
            assertThat(TestRedisSupport.pttl(redis, written.get(0))).as("PTTL of %s", show(key)).isPositive();
        }
    }

    /**
     * Plans with equal limits, and the limiter of the same name without plans, would share state if
     * only the limits told their keys apart; and no key, such as "pro:x" without plans, may reach plan
     * pro's "x": every limiter takes all its permits of every key, so any shared state shows as a rejection.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void plansShareNoStateWithEachOtherNorWithTheLimiterWithoutPlans(Backend backend) {
        RateLimiterFactory factory = backend.factory(new VirtualClock(), TestRedisSupport.uniquePrefix());
        for (Algorithm algorithm : Algorithm.values()) {
            RateLimiterConfig config = RateLimiterConfig.of(algorithm, LimitSpec.of(2, Duration.ofSeconds(10)));
            RateLimiter pro = factory.create("orders", "pro", config);
            RateLimiter trial = factory.create("orders", "trial", config);
            RateLimiter proAgain = factory.create("orders", "pro", config);
            RateLimiter withoutPlans = factory.create("orders", config);
            List<RateLimiter> separate = List.of(pro, trial, withoutPlans);
            for (String key : List.of("x", "", "pro:x", "pro/x", "orders/pro:x", "}x", "x}:" + RedisKeys.tail(algorithm).substring(2))) {
                for (RateLimiter limiter : separate) {
                    assertThat(limiter.tryAcquire(key, 2).allowed()).as("%s %s %s", algorithm, limiter, show(key)).isTrue();
                }
                for (RateLimiter limiter : separate) {
                    assertThat(limiter.tryAcquire(key).allowed()).as("%s %s %s exhausted", algorithm, limiter, show(key)).isFalse();
                }
            }
            if (backend == Backend.REDIS) {
                // Another instance's limiter of the same plan shares the plan's state.
                assertThat(proAgain.tryAcquire("x").allowed()).isFalse();
                assertThat(((RedisRateLimiter) proAgain).redisKey("x")).isEqualTo(((RedisRateLimiter) pro).redisKey("x"));
            }
        }
    }

    @Test
    void planNamesAreCheckedLikeLimiterNames() {
        RateLimiterFactory factory = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix("limiter").build();
        RateLimiterConfig config = RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofSeconds(10)));
        for (String plan : List.of("", "a:b", "a/b", "a}b", "a{b", "-a", "a b")) {
            assertThatThrownBy(() -> factory.create("orders", plan, config)).as(plan).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid plan name");
        }
    }

    @Test
    void longKeysGiveBoundedRedisKeys() {
        RedisRateLimiter limiter = (RedisRateLimiter) RedisRateLimiterFactory.builder(TestRedisSupport.shared())
            .keyPrefix("limiter").build()
            .create("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofSeconds(10)));
        List<String> longKeys = List.of("k".repeat(RedisKeys.MAX_KEY_BYTES + 1), MEGABYTE, "{".repeat(500),
                "\uD83D\uDE00".repeat(1000), "\u4e2d".repeat(10_000), "\u4e2d".repeat(100), "\uD800".repeat(200));
        for (String key : longKeys) {
            int bytes = limiter.redisKey(key).getBytes(StandardCharsets.UTF_8).length;
            assertThat(bytes).as("Redis key bytes for a key of %d chars", key.length()).isLessThan(300);
            assertThat(RedisKeys.escape(key).getBytes(StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(RedisKeys.MAX_KEY_BYTES);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void trickyKeysEachGetTheirOwnLimit(Backend backend) {
        VirtualClock clock = new VirtualClock();
        RateLimiterFactory factory = backend.factory(clock, TestRedisSupport.uniquePrefix());
        for (Algorithm algorithm : Algorithm.values()) {
            RateLimiter limiter = factory.create("orders", algorithm, LimitSpec.of(2, Duration.ofSeconds(10)));
            // If two keys shared state, the second one's calls would already find permits taken.
            for (String key : trickyKeys()) {
                Decision d = limiter.tryAcquire(key, 2);
                assertThat(d.allowed()).as("%s %s", algorithm, show(key)).isTrue();
                assertThat(d.remaining()).isZero();
            }
            for (String key : trickyKeys()) {
                assertThat(limiter.tryAcquire(key).allowed()).as("%s %s exhausted", algorithm, show(key)).isFalse();
            }
        }
    }

    /** Text between the first '{' and the first '}' after it: what Redis Cluster hashes. */
    static String hashTag(String redisKey) {
        int open = redisKey.indexOf('{');
        int close = redisKey.indexOf('}', open + 1);
        assertThat(open).isNotNegative();
        assertThat(close).isGreaterThan(open + 1);
        return redisKey.substring(open + 1, close);
    }

    /** A readable form of a key for assertion messages (long ones shortened, controls as \\uXXXX). */
    static String show(String key) {
        if (key == null) {
            return "null";
        }
        String head = key.length() > 40 ? key.substring(0, 40) + "...(" + key.length() + " chars)" : key;
        StringBuilder out = new StringBuilder("\"");
        head.chars().forEach(c -> out.append(c < 0x20 || c == 0x7f || Character.isSurrogate((char) c)
                ? String.format("\\u%04X", c) : String.valueOf((char) c)));
        return out.append('"').toString();
    }
}
