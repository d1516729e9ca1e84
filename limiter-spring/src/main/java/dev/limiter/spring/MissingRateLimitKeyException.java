package dev.limiter.spring;

/**
 * Thrown when a call's rate limit key evaluates to null or empty text and
 * {@code limiter.on-missing-key} is {@code reject}: the request lacks what it is limited by, so the
 * web integration answers {@code 400 Bad Request}.
 */
public class MissingRateLimitKeyException extends IllegalArgumentException {

    private final String limiterName;

    public MissingRateLimitKeyException(String limiterName, String message) {
        super(message);
        this.limiterName = limiterName;
    }

    /** Name of the limiter whose key is missing. */
    public String getLimiterName() {
        return limiterName;
    }
}
