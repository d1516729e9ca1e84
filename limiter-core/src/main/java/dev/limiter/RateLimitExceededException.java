package dev.limiter;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a rate limited call is rejected. Carries the {@link Decision}, so handlers can tell
 * the caller when to retry; the web integration turns it into {@code 429 Too Many Requests}.
 */
public class RateLimitExceededException extends RuntimeException {

    private final String limiterName;

    /** Serialized with the exception, so that it is there wherever the exception goes. */
    private final Decision decision;

    /** Built when first asked for: most rejections are answered without anyone reading it. */
    private @Nullable String message;

    public RateLimitExceededException(String limiterName, Decision decision) {
        super(null, null, false, false);
        this.limiterName = limiterName;
        this.decision = decision;
    }

    @Override
    public String getMessage() {
        if (message == null) {
            message = message(limiterName, decision);
        }
        return message;
    }

    private static String message(String limiterName, Decision decision) {
        if (decision.neverAllowed()) {
            return "Rate limit '" + limiterName + "' exceeded: the request costs more than the limit of "
                    + decision.limit() + " permits and can never pass";
        }
        return "Rate limit '" + limiterName + "' exceeded: limit " + decision.limit() + ", retry after "
                + decision.retryAfter().toMillis() + " ms";
    }

    /** Name of the limiter that rejected the call. */
    public String getLimiterName() {
        return limiterName;
    }

    /** The rejecting decision. */
    public Decision getDecision() {
        return decision;
    }
}
