package dev.limiter.autoconfigure;

import java.util.concurrent.CompletionStage;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimiter;

/**
 * Makes decisions observable: every decision passes through {@link #decide}, and the outcome of every
 * call through {@link #count}, once. Micrometer's recorder counts and observes; without Micrometer
 * nothing is recorded.
 */
interface DecisionRecorder {

    /** Records nothing. */
    DecisionRecorder NONE = new DecisionRecorder() {
    };

    /** The {@code backend} tag of what made a decision. */
    static String backendTag(DecisionSource source) {
        return switch (source) {
            case REDIS -> "redis";
            case MEMORY -> "memory";
            case LOCAL_FALLBACK -> "local-fallback";
            case LOCAL_DENY_CACHE -> "local-deny-cache";
            case FAILURE_POLICY -> "failure-policy";
        };
    }

    /** Takes {@code permits} for {@code key} from {@code limiter}, observed as one decision. */
    default Decision decide(RateLimiter limiter, String key, long permits) {
        return limiter.tryAcquire(key, permits);
    }

    /** Takes {@code permits} for {@code key} from {@code limiter} without blocking, observed as one decision. */
    default CompletionStage<Decision> decideAsync(RateLimiter limiter, String key, long permits) {
        return limiter.tryAcquireAsync(key, permits);
    }

    /** Counts what became of one call the limiter decided. */
    default void count(RateLimiter limiter, Decision decision, Outcome outcome) {
    }

    /** Counts a call that could not be decided, such as one whose key expression failed. */
    default void countError(RateLimiter limiter) {
    }
}
