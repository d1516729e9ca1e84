package dev.limiter;

/**
 * Creates limiters on one backend: {@code RedisRateLimiterFactory} (module limiter-redis) shares state across instances
 * through Redis, {@code InMemoryRateLimiterFactory} keeps it in this process.
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

    /**
     * Checks a limiter name, which every backend puts into its keys: 1 to 100 letters, digits, '.', '-' or
     * '_', starting with a letter or digit.
     *
     * @return the name
     * @throws IllegalArgumentException naming the bad name and what a name may hold
     */
    static String checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            throw new IllegalArgumentException("Invalid limiter name '" + name + "': use 1 to 100 letters, digits, '.', '-' or '_', "
                    + "starting with a letter or digit");
        }
        return name;
    }
}
