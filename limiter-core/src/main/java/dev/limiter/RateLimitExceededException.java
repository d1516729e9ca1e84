package dev.limiter;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a rate limited call is rejected. Carries the {@link Decision}, so handlers can tell
 * the caller when to retry; the web integration turns it into {@code 429 Too Many Requests}.
 */
public class RateLimitExceededException extends RuntimeException {

    private final String limiterName;

    /** The plan whose limits rejected the call; null for a limiter without plans. */
    private final @Nullable String plan;

    /** Serialized with the exception, so that it is there wherever the exception goes. */
    private final Decision decision;

    /** Built when first asked for: most rejections are answered without anyone reading it. */
    private @Nullable String message;

    public RateLimitExceededException(String limiterName, Decision decision) {
        this(limiterName, null, decision);
    }

    /**
     * @param limiterName the limiter that rejected the call
     * @param plan the plan of that limiter whose limits rejected it; null for a limiter without plans
     * @param decision the rejecting decision
     */
    public RateLimitExceededException(String limiterName, @Nullable String plan, Decision decision) {
        super(null, null, false, false);
        this.limiterName = limiterName;
        this.plan = plan;
        this.decision = decision;
    }

    @Override
    public String getMessage() {
        if (message == null) {
            message = message(limiterName, plan, decision);
        }
        return message;
    }

    private static String message(String limiterName, @Nullable String plan, Decision decision) {
        String limit = "Rate limit '" + limiterName + "'" + ((plan != null) ? " (plan '" + plan + "')" : "");
        if (decision.neverAllowed()) {
            return limit + " exceeded: the request costs more than the limit of " + decision.limit() + " permits and can never pass";
        }
        return limit + " exceeded: limit " + decision.limit() + ", retry after " + decision.retryAfter().toMillis() + " ms";
    }

    /** Name of the limiter that rejected the call. */
    public String getLimiterName() {
        return limiterName;
    }

    /** The plan whose limits rejected the call; null for a limiter without plans. */
    public @Nullable String getPlan() {
        return plan;
    }

    /** The rejecting decision. */
    public Decision getDecision() {
        return decision;
    }
}
