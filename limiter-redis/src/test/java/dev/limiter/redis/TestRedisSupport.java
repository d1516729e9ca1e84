package dev.limiter.redis;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.limiter.test.TestRedis;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Connections to the test Redis. Tests never flush anything (the Redis may be shared through
 * LIMITER_TEST_REDIS_URL): each one writes only under its own random key prefix.
 */
final class TestRedisSupport {

    private static StringRedisTemplate shared;

    private static ReactiveStringRedisTemplate sharedReactive;

    private TestRedisSupport() {
    }

    /** A template on {@link TestRedis#shared()}, created once per JVM and kept until it exits. */
    static synchronized StringRedisTemplate shared() {
        if (shared == null) {
            LettuceConnectionFactory factory = connectionFactory(TestRedis.shared(),
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
            shared = template(factory);
        }
        return shared;
    }

    /** A reactive template on the connection factory of {@link #shared()}. */
    static synchronized ReactiveStringRedisTemplate sharedReactive() {
        if (sharedReactive == null) {
            sharedReactive = new ReactiveStringRedisTemplate((LettuceConnectionFactory) shared().getConnectionFactory());
        }
        return sharedReactive;
    }

    /** A started connection factory for {@code redis}, honouring user, password and database of its URL. */
    static LettuceConnectionFactory connectionFactory(TestRedis redis, LettuceClientConfiguration client) {
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(redis.host(), redis.port());
        URI url = URI.create(redis.url());
        String userInfo = url.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                config.setPassword(decode(userInfo));
            }
            else {
                if (colon > 0) {
                    config.setUsername(decode(userInfo.substring(0, colon)));
                }
                config.setPassword(decode(userInfo.substring(colon + 1)));
            }
        }
        String path = url.getPath();
        if (path != null && path.length() > 1) {
            config.setDatabase(Integer.parseInt(path.substring(1)));
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(config, client);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    static StringRedisTemplate template(LettuceConnectionFactory factory) {
        StringRedisTemplate template = new StringRedisTemplate(factory);
        template.afterPropertiesSet();
        return template;
    }

    /** A key prefix no other test (or earlier run) uses; contains no glob characters, so SCAN MATCH prefix* is exact. */
    static String uniquePrefix() {
        return "t" + UUID.randomUUID().toString().replace("-", "");
    }

    /** PTTL in milliseconds: -2 when the key is missing, -1 when it has no TTL. */
    static long pttl(StringRedisTemplate redis, String key) {
        Long pttl = redis.execute((RedisCallback<Long>) c -> c.keyCommands().pTtl(key.getBytes(StandardCharsets.UTF_8)));
        return pttl;
    }

    static boolean exists(StringRedisTemplate redis, String key) {
        return Boolean.TRUE.equals(redis.hasKey(key));
    }

    /** Every key under {@code prefix}, found with SCAN (never KEYS, which blocks a shared Redis). */
    static List<String> keysUnder(StringRedisTemplate redis, String prefix) {
        List<String> keys = new ArrayList<>();
        try (Cursor<String> cursor = redis.scan(ScanOptions.scanOptions().match(prefix + "*").count(1000).build())) {
            cursor.forEachRemaining(keys::add);
        }
        return keys;
    }

    private static String decode(String text) {
        return java.net.URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
