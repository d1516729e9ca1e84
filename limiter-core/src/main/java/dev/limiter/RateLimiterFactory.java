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

    /**
     * Creates the limiter of one plan of limiter {@code name}, such as plan "pro" of limiter "api":
     * named {@code name}, deciding by {@code config}, and keeping its keys' state apart from every
     * other plan's and from a limiter of that name without plans, whatever the limits. So a key that
     * moves to another plan starts counting afresh there.
     *
     * @param name limiter name, as for {@link #create(String, RateLimiterConfig)}
     * @param plan plan name: the same characters as a limiter name
     * @param config algorithm, limits and options of the plan
     * @throws UnsupportedOperationException by a factory that cannot keep plans apart; Limiter's own can
     */
    default RateLimiter create(String name, String plan, RateLimiterConfig config) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot create limiters of plans: it does not override "
                + "RateLimiterFactory.create(String, String, RateLimiterConfig)");
    }

    /**
     * Creates a limiter of calls in flight ({@link ConcurrencyLimiter}) on this factory's backend; its keys
     * never meet those of a rate limiter of the same name.
     *
     * @param name limiter name, as for {@link #create(String, RateLimiterConfig)}
     * @param config the limit of calls in flight and options
     * @throws UnsupportedOperationException by a factory without concurrency limits; Limiter's own have them
     */
    default ConcurrencyLimiter createConcurrencyLimiter(String name, ConcurrencyLimiterConfig config) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot create concurrency limiters");
    }

    /** Creates a limiter with a single limit. */
    default RateLimiter create(String name, Algorithm algorithm, LimitSpec spec) {
        return create(name, RateLimiterConfig.of(algorithm, spec));
    }
}
