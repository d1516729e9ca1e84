package dev.limiter;

/**
 * The rate limiting algorithms. Each one is a Lua script run atomically in Redis and an in-memory
 * twin with identical arithmetic; adding an algorithm means one script, one twin and one constant.
 */
public enum Algorithm {

    /**
     * At most {@code limit} permits per window; windows are aligned to the epoch. Up to twice the
     * limit can pass around a window boundary.
     */
    FIXED_WINDOW("fixed-window", "fw", new FixedWindow()),

    /**
     * A bucket of {@code burst} tokens refilled continuously at {@code limit/window}; a request takes
     * its permits from the bucket.
     */
    TOKEN_BUCKET("token-bucket", "tb", new TokenBucket());

    private final String configName;

    private final String keySuffix;

    private final LocalAlgorithm<?> twin;

    Algorithm(String configName, String keySuffix, LocalAlgorithm<?> twin) {
        this.configName = configName;
        this.keySuffix = keySuffix;
        this.twin = twin;
    }

    /** Name used in configuration, such as {@code token-bucket}. */
    public String configName() {
        return configName;
    }

    /** Short tag that ends this algorithm's Redis keys, so algorithms never read each other's state. */
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
        return this == FIXED_WINDOW ? spec.limit() : spec.burst();
    }

    @Override
    public String toString() {
        return configName;
    }
}
