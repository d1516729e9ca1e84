package dev.limiter;

import org.jspecify.annotations.Nullable;

/**
 * One decision a limiter made, or one call it could not decide, as its {@link DecisionListener}s hear
 * it: exactly once per call, with what became of the call. Metrics and observations are built from
 * these events.
 *
 * @param limiter the limiter that decided, or that was to decide
 * @param decision the decision, with {@link Decision#source() what made it}; null when the call could
 *     not be decided ({@link Outcome#ERROR})
 * @param outcome what became of the call: {@link Outcome#ALLOWED} or {@link Outcome#REJECTED} for a
 *     limiter called directly, or what the caller does with a rejection (see
 *     {@link RateLimiter#reportingRejectionsAs(Outcome)})
 * @param redisNanos how long the Redis round trip took, or -1 when Redis was not asked
 * @param failure why the call could not be decided; null unless {@code outcome} is {@link Outcome#ERROR}
 */
public record DecisionEvent(RateLimiter limiter, @Nullable Decision decision, Outcome outcome, long redisNanos,
        @Nullable Throwable failure) {

    /** The event of {@code decision}: allowed, or rejected with {@code rejectedAs} as its outcome. */
    public static DecisionEvent of(RateLimiter limiter, Decision decision, Outcome rejectedAs, long redisNanos) {
        return new DecisionEvent(limiter, decision, decision.allowed() ? Outcome.ALLOWED : rejectedAs, redisNanos, null);
    }

    /** The event of a call {@code limiter} could not decide, such as one whose key could not be computed. */
    public static DecisionEvent failed(RateLimiter limiter, Throwable failure) {
        return new DecisionEvent(limiter, null, Outcome.ERROR, -1, failure);
    }
}
