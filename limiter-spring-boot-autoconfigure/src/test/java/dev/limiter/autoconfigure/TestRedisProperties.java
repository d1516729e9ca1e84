package dev.limiter.autoconfigure;

import java.util.UUID;

import dev.limiter.test.TestRedis;

/**
 * Properties pointing Spring Data Redis at the test Redis ({@link TestRedis#shared()}), never the
 * one on 6379, with a key prefix that no other test uses.
 */
public final class TestRedisProperties {

    private TestRedisProperties() {
    }

    /** A key prefix of its own, so tests never see each other's keys and need not flush anything. */
    public static String uniqueKeyPrefix() {
        return "limiter-test-" + UUID.randomUUID();
    }

    /** The connection and {@code limiter.key-prefix} properties. */
    public static String[] withKeyPrefix(String keyPrefix) {
        TestRedis redis = TestRedis.shared();
        // The URL rather than host and port keeps a password or database of LIMITER_TEST_REDIS_URL.
        // Generous timeouts: on a loaded machine the 100 ms default can expire before a healthy Redis
        // answers, and the failure policy would decide instead. Outage tests set their own.
        return new String[] { "spring.data.redis.url=" + redis.url(), "limiter.key-prefix=" + keyPrefix, "limiter.redis.timeout=2s",
                "limiter.redis.connect-timeout=5s" };
    }
}
