package dev.limiter;

/** Creates limiters that keep their state in this process, bounded to a number of keys per limiter. */
public final class InMemoryRateLimiterFactory implements RateLimiterFactory {

    /** Keys each limiter holds by default before evicting the least recently used. */
    public static final long DEFAULT_MAX_KEYS = 100_000;

    private final LimiterClock clock;

    private final long maxKeys;

    private final DecisionListener listener;

    /** System clock, {@value #DEFAULT_MAX_KEYS} keys per limiter. */
    public InMemoryRateLimiterFactory() {
        this(LimiterClock.system(), DEFAULT_MAX_KEYS);
    }

    /**
     * @param clock time source (tests pass a virtual clock)
     * @param maxKeys keys each limiter holds at most; beyond that the least recently used are forgotten
     */
    public InMemoryRateLimiterFactory(LimiterClock clock, long maxKeys) {
        this(clock, maxKeys, DecisionListener.NONE);
    }

    private InMemoryRateLimiterFactory(LimiterClock clock, long maxKeys, DecisionListener listener) {
        if (clock == null) {
            throw new IllegalArgumentException("clock must not be null");
        }
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1 but was " + maxKeys);
        }
        this.clock = clock;
        this.maxKeys = maxKeys;
        this.listener = (listener != null) ? listener : DecisionListener.NONE;
    }

    /** The same factory, telling {@code listener} of every decision its limiters make. */
    public InMemoryRateLimiterFactory withListener(DecisionListener listener) {
        return new InMemoryRateLimiterFactory(clock, maxKeys, listener);
    }

    /** Keys each limiter holds at most. */
    long maxKeys() {
        return maxKeys;
    }

    @Override
    public RateLimiter create(String name, RateLimiterConfig config) {
        return new InMemoryRateLimiter<>(name, config, clock, maxKeys, listener);
    }
}
