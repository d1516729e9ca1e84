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
    FIXED_WINDOW("fixed-window", "fw", false, new FixedWindow()),

    /**
     * Counters per sub-window; the limit holds over any window-long span to within one sub-window.
     */
    SLIDING_WINDOW("sliding-window", "sw", false, new SlidingWindow()),

    /**
     * A log of admitted permits; exact over every window-long span, memory growing with the limit.
     */
    SLIDING_LOG("sliding-log", "sl", false, new SlidingLog()),

    /**
     * A bucket of {@code burst} tokens refilled continuously at {@code limit/window}; a request takes
     * its permits from the bucket.
     */
    TOKEN_BUCKET("token-bucket", "tb", true, new TokenBucket()),

    /**
     * A bucket whose level drains at {@code limit/window}; a request is admitted while its permits
     * fit under {@code burst}.
     */
    LEAKY_BUCKET("leaky-bucket", "lb", true, new LeakyBucket()),

    /**
     * Generic cell rate algorithm: one timestamp per key, rate {@code limit/window}, burst
     * {@code burst}.
     */
    GCRA("gcra", "gc", true, new Gcra());

    private final String configName;

    private final String keySuffix;

    private final boolean bucket;

    private final LocalAlgorithm<?> twin;

    Algorithm(String configName, String keySuffix, boolean bucket, LocalAlgorithm<?> twin) {
        this.configName = configName;
        this.keySuffix = keySuffix;
        this.bucket = bucket;
        this.twin = twin;
    }

    /** Name used in configuration, such as {@code token-bucket}. */
    public String configName() {
        return configName;
    }

    /** Whether this is a bucket algorithm: it has a burst and may let callers wait (max-wait). */
    public boolean isBucket() {
        return bucket;
    }

    /** Short tag in this algorithm's Redis keys, so algorithms never read each other's state. */
    String keySuffix() {
        return keySuffix;
    }

    /** Classpath location of the Lua script. */
    String scriptLocation() {
        return "dev/limiter/" + configName + ".lua";
    }

    /** The in-memory twin of the script. */
    LocalAlgorithm<?> twin() {
        return twin;
    }

    /** The most permits a request can ever obtain at once under {@code spec}. */
    long capacity(LimitSpec spec) {
        return bucket ? spec.burst() : spec.limit();
    }

    @Override
    public String toString() {
        return configName;
    }
}
