package dev.limiter;

/**
 * Hears every decision a limiter makes, for metrics and tracing. Called on the deciding thread
 * right after the decision, so it must be quick and must not throw.
 */
@FunctionalInterface
public interface DecisionListener {

    /** A listener that does nothing. */
    DecisionListener NONE = (limiter, decision, redisNanos) -> {
    };

    /**
     * @param limiter the deciding limiter
     * @param decision its decision, with {@link Decision#source() what made it}: Redis, memory, the
     *     local deny cache, or (while Redis fails) the failure policy
     * @param redisNanos how long the Redis round trip took, or -1 when Redis was not asked
     */
    void onDecision(RateLimiter limiter, Decision decision, long redisNanos);
}
