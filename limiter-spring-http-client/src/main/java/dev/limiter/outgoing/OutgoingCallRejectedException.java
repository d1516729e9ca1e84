package dev.limiter.outgoing;

import java.time.Duration;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;

/**
 * Thrown instead of making an outgoing call that could not get its permit within the limiter's
 * max-wait: the limiter's quota is spent further ahead than that, or the upstream asked every instance
 * to hold the key longer. Nothing was sent. A {@link RateLimitExceededException}, so handlers of
 * rejections (and the web layer's 429 with {@code Retry-After}) treat it alike.
 */
public class OutgoingCallRejectedException extends RateLimitExceededException {

    private final String key;

    private final Duration waited;

    private final Duration maxWait;

    private final boolean held;

    private final String request;

    /**
     * @param limiter the limiter of the call's route
     * @param key the call's key
     * @param decision the rejecting decision: the limiter's, or one made of the hold
     * @param waited how long the call had waited already
     * @param maxWait the limiter's max-wait
     * @param held whether the upstream's hold rejected it, rather than the limiter's quota
     * @param request the call, such as {@code GET https://api.partner.com/v1/orders}
     */
    public OutgoingCallRejectedException(String limiter, String key, Decision decision, Duration waited, Duration maxWait, boolean held,
            String request) {
        super(limiter, decision);
        this.key = key;
        this.waited = waited;
        this.maxWait = maxWait;
        this.held = held;
        this.request = request;
    }

    @Override
    public String getMessage() {
        String needed = getDecision().neverAllowed() ? "never (it costs more than the limit)" : getDecision().retryAfter().toMillis() + " ms more";
        return "Outgoing call " + request + " not made: limiter '" + getLimiterName() + "', key '" + key + "' "
                + (held ? "is held by the upstream (it answered 429/503 with Retry-After, or RateLimit fields with nothing remaining)"
                        : "has no permit within its max-wait")
                + "; waited " + waited.toMillis() + " ms, would need " + needed + ", max-wait " + maxWait.toMillis() + " ms";
    }

    /** The call's key under its limiter. */
    public String getKey() {
        return key;
    }

    /** How long the call waited before it was given up. */
    public Duration getWaited() {
        return waited;
    }

    /** The limiter's max-wait when the call was given up. */
    public Duration getMaxWait() {
        return maxWait;
    }

    /** Whether a hold the upstream asked for gave the call up, rather than the limiter's own quota. */
    public boolean isHeld() {
        return held;
    }
}
