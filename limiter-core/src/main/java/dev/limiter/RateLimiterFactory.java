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
     * @param algorithm the deciding algorithm
     * @param spec how much it admits
     */
    RateLimiter create(String name, Algorithm algorithm, LimitSpec spec);
}
