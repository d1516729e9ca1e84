package dev.limiter;

/**
 * Creates limiters on one backend: {@link RedisRateLimiterFactory} shares state across instances
 * through Redis, {@link InMemoryRateLimiterFactory} keeps it in this process.
 */
@FunctionalInterface
public interface RateLimiterFactory {

    /**
     * Creates a limiter.
     *
     * @param name limiter name: letters, digits, '.', '-' or '_'
     * @param config algorithm, limits and options
     */
    RateLimiter create(String name, RateLimiterConfig config);

    /** Creates a limiter with a single limit. */
    default RateLimiter create(String name, Algorithm algorithm, LimitSpec spec) {
        return create(name, RateLimiterConfig.of(algorithm, spec));
    }
}
