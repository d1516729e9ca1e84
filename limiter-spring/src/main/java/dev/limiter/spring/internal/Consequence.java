package dev.limiter.spring.internal;

import java.time.Duration;

import dev.limiter.Decision;
import dev.limiter.Outcome;

/**
 * What becomes of one decided call, worked out once from its decision and its method's shadow flag
 * and fallback: every return kind then renders the same consequence in its own terms (a thrown
 * exception, a failed stage, an error signal).
 *
 * @param step what the call does next
 * @param outcome what is recorded for it
 * @param decision the decision it follows from
 */
public record Consequence(Step step, Outcome outcome, Decision decision) {

    /** What a decided call does next. */
    public enum Step {

        /** Proceeds to the method at once: allowed, or rejected by a limiter in shadow mode. */
        PROCEED,

        /** Proceeds once its turn comes: with max-wait, its permits are reserved {@link Decision#waitFor()} ahead. */
        AWAIT_TURN,

        /** Fails with {@link dev.limiter.RateLimitExceededException}, without calling the method. */
        FAIL,

        /** The fallback method answers instead of the method. */
        FALL_BACK
    }

    /** The consequence of {@code decision} for a call of {@code method} (or under a rule). */
    public static Consequence of(EnforcementPoint method, Decision decision) {
        if (decision.allowed()) {
            // A shadow limiter must not slow its callers either: they never wait.
            boolean waits = !decision.waitFor().isZero() && !method.shadow();
            return new Consequence(waits ? Step.AWAIT_TURN : Step.PROCEED, Outcome.ALLOWED, decision);
        }
        Outcome outcome = rejectedAs(method.shadow(), method.hasFallback());
        return switch (outcome) {
            // Shadow mode changes nothing for the caller.
            case SHADOW_REJECTED -> new Consequence(Step.PROCEED, outcome, decision);
            case FALLBACK -> new Consequence(Step.FALL_BACK, outcome, decision);
            default -> new Consequence(Step.FAIL, outcome, decision);
        };
    }

    /**
     * What becomes of a rejected call: it proceeds in shadow mode, else a fallback answers it, else it
     * is rejected. The limiter deciding reports its rejections so ({@link dev.limiter.RateLimiter#reportingRejectionsAs}),
     * so its metrics and the consequence always agree.
     */
    public static Outcome rejectedAs(boolean shadow, boolean hasFallback) {
        return shadow ? Outcome.SHADOW_REJECTED : hasFallback ? Outcome.FALLBACK : Outcome.REJECTED;
    }

    /** How long an {@link Step#AWAIT_TURN} call waits before it proceeds. */
    public Duration turnIn() {
        return decision.waitFor();
    }
}
