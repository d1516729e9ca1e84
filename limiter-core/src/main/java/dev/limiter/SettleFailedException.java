package dev.limiter;

import org.jspecify.annotations.Nullable;

/**
 * A call's cost could not be settled ({@link RateLimiter#settle}) because the limiter's state could not
 * be reached, such as while Redis is unavailable; the key keeps whatever state it had.
 */
public class SettleFailedException extends RuntimeException {

    private final String limiterName;

    private final String key;

    private final long reserved;

    private final long actual;

    public SettleFailedException(String limiterName, String key, long reserved, long actual, String reason, @Nullable Throwable cause) {
        super("Could not settle key '" + key + "' of limiter '" + limiterName + "' from " + reserved + " permits reserved to " + actual
                + " actual: " + reason, cause);
        this.limiterName = limiterName;
        this.key = key;
        this.reserved = reserved;
        this.actual = actual;
    }

    /** Name of the limiter whose key was to be settled. */
    public String getLimiterName() {
        return limiterName;
    }

    /** The key that was to be settled. */
    public String getKey() {
        return key;
    }

    /** The permits the call reserved. */
    public long getReserved() {
        return reserved;
    }

    /** What the call cost. */
    public long getActual() {
        return actual;
    }
}
