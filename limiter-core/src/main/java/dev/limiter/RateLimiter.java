package dev.limiter;

/**
 * A named rate limiter: decides, per key, whether a request may take its permits now.
 * Implementations are thread-safe.
 */
public interface RateLimiter {

    /** Name of the limiter, as used in configuration ({@code limiter.limiters.<name>}) and in keys. */
    String name();

    /** The algorithm deciding. */
    Algorithm algorithm();

    /** How much the limiter admits. */
    LimitSpec spec();

    /**
     * Tries to take {@code permits} permits for {@code key}: all of them or none.
     *
     * @param key the subject limited, such as a user id; "" limits everyone together
     * @param permits permits asked for, at least 1
     * @return the decision; a rejected request has taken nothing
     */
    Decision tryAcquire(String key, long permits);

    /** Tries to take one permit for {@code key}. */
    default Decision tryAcquire(String key) {
        return tryAcquire(key, 1);
    }
}
