package dev.limiter;

import org.jspecify.annotations.Nullable;

/**
 * Permits could not be given back to a key because the limiter's state could not be reached, such as
 * while Redis is unavailable; the key keeps whatever state it had. Worth trying again once the state
 * answers.
 */
public class RefundFailedException extends RuntimeException {

    private final String limiterName;

    private final String key;

    private final long permits;

    public RefundFailedException(String limiterName, String key, long permits, String reason, @Nullable Throwable cause) {
        super("Could not give " + permits + " permit" + ((permits == 1) ? "" : "s") + " back to key '" + key + "' of limiter '"
                + limiterName + "': " + reason, cause);
        this.limiterName = limiterName;
        this.key = key;
        this.permits = permits;
    }

    /** Name of the limiter whose key was to get permits back. */
    public String getLimiterName() {
        return limiterName;
    }

    /** The key that was to get permits back. */
    public String getKey() {
        return key;
    }

    /** The permits that were to be given back. */
    public long getPermits() {
        return permits;
    }
}
