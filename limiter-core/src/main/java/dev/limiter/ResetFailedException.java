package dev.limiter;

import org.jspecify.annotations.Nullable;

/**
 * A key could not be reset because the limiter's state could not be reached, such as while Redis is
 * unavailable; the key keeps whatever state it had. Worth trying again once the state answers.
 */
public class ResetFailedException extends RuntimeException {

    private final String limiterName;

    private final String key;

    public ResetFailedException(String limiterName, String key, String reason, @Nullable Throwable cause) {
        super("Could not reset key '" + key + "' of limiter '" + limiterName + "': " + reason, cause);
        this.limiterName = limiterName;
        this.key = key;
    }

    /** Name of the limiter whose key was to be reset. */
    public String getLimiterName() {
        return limiterName;
    }

    /** The key that was to be reset. */
    public String getKey() {
        return key;
    }
}
