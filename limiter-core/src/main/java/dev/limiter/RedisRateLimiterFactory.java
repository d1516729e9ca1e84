package dev.limiter;

import org.springframework.data.redis.core.RedisOperations;

/**
 * Creates limiters whose state lives in Redis, shared by every instance of the application.
 * Immutable: the {@code with...} methods return a changed copy.
 */
public final class RedisRateLimiterFactory implements RateLimiterFactory {

    /** Key prefix used unless another is given. */
    public static final String DEFAULT_KEY_PREFIX = "limiter";

    private final RedisOperations<String, String> redis;

    private final String keyPrefix;

    private final LimiterClock clock;

    private final RateLimiterFactory fallback;

    /**
     * @param redis operations with String keys and values, such as a {@code StringRedisTemplate}
     */
    public RedisRateLimiterFactory(RedisOperations<String, String> redis) {
        this(redis, DEFAULT_KEY_PREFIX, null, null);
    }

    private RedisRateLimiterFactory(RedisOperations<String, String> redis, String keyPrefix, LimiterClock clock,
            RateLimiterFactory fallback) {
        if (redis == null) {
            throw new IllegalArgumentException("redis must not be null");
        }
        this.redis = redis;
        this.keyPrefix = RedisKeys.checkPrefix(keyPrefix);
        this.clock = clock;
        this.fallback = fallback;
    }

    /** Keys start with {@code keyPrefix + ":"}; the prefix must not contain '{' or '}'. */
    public RedisRateLimiterFactory withKeyPrefix(String keyPrefix) {
        return new RedisRateLimiterFactory(redis, keyPrefix, clock, fallback);
    }

    /**
     * Passes time from {@code clock} to the scripts instead of reading Redis TIME. Meant for tests
     * that drive time; in production, Redis time keeps instances with skewed clocks in agreement.
     */
    public RedisRateLimiterFactory withClock(LimiterClock clock) {
        return new RedisRateLimiterFactory(redis, keyPrefix, clock, fallback);
    }

    /** Limiters from {@code fallback} decide while Redis fails; without one, Redis errors propagate. */
    public RedisRateLimiterFactory withFallback(RateLimiterFactory fallback) {
        return new RedisRateLimiterFactory(redis, keyPrefix, clock, fallback);
    }

    @Override
    public RateLimiter create(String name, RateLimiterConfig config) {
        RateLimiter local = (fallback != null) ? fallback.create(name, config) : null;
        return new RedisRateLimiter(name, config, redis, keyPrefix, clock, local);
    }
}
