package dev.limiter;



/**
 * The rate limiting algorithms (exact semantics in docs/algorithms.md). Each one is a Lua script run
 * atomically in Redis and an in-memory twin with identical arithmetic; adding an algorithm means
 * one script, one twin and one constant.
 */
public enum Algorithm {

    /**
     * At most {@code limit} permits per window; windows are aligned to the epoch. Up to twice the
     * limit can pass around a window boundary.
     */
    FIXED_WINDOW("fixed-window", false),

    /**
     * Counters per sub-window; the limit holds over any window-long span to within one sub-window.
     */
    SLIDING_WINDOW("sliding-window", false),

    /**
     * A log of admitted permits; exact over every window-long span, memory growing with the limit.
     */
    SLIDING_LOG("sliding-log", false),

    /**
     * A bucket of {@code burst} tokens refilled continuously at {@code limit/window}; a request takes
     * its permits from the bucket.
     */
    TOKEN_BUCKET("token-bucket", true),

    /**
     * A bucket whose level drains at {@code limit/window}; a request is admitted while its permits
     * fit under {@code burst}.
     */
    LEAKY_BUCKET("leaky-bucket", true),

    /**
     * Generic cell rate algorithm: one timestamp per key, rate {@code limit/window}, burst
     * {@code burst}.
     */
    GCRA("gcra", true);

    private final String configName;

    private final boolean bucket;

    Algorithm(String configName, boolean bucket) {
        this.configName = configName;
        this.bucket = bucket;
    }

    /** Name used in configuration, such as {@code token-bucket}. */
    public String configName() {
        return configName;
    }

    /** Whether this is a bucket algorithm: it has a burst and may let callers wait (max-wait). */
    public boolean isBucket() {
        return bucket;
    }

    /** The most permits a request can ever obtain at once under {@code spec}. */
    public long capacity(LimitSpec spec) {
        return bucket ? spec.burst() : spec.limit();
    }

    @Override
    public String toString() {
        return configName;
    }
}
