package dev.limiter.spring;

import java.util.concurrent.CompletionStage;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;

/**
 * Makes decisions observable: every decision passes through {@link #decide}, and the outcome of every
 * call through {@link #count}, once. Micrometer's recorder (Spring Boot's auto-configuration) counts
 * and observes; without one nothing is recorded.
 */
public interface DecisionRecorder {

    /** Records nothing. */
    DecisionRecorder NONE = new DecisionRecorder() {
    };

    /**
     * A factory whose limiters record their decisions through {@code recorder}: for limiters an
     * application calls directly. A {@link RateLimited} method's calls are recorded once, with what
     * became of them, even when its limiter comes from such a factory.
     */
    static RateLimiterFactory recording(RateLimiterFactory factory, DecisionRecorder recorder) {
        return new RateLimiterFactory() {

            @Override
            public RateLimiter create(String name, RateLimiterConfig config) {
                return new MeteredRateLimiter(factory.create(name, config), recorder);
            }

            @Override
            public RateLimiter create(String name, String plan, RateLimiterConfig config) {
                return new MeteredRateLimiter(factory.create(name, plan, config), recorder);
            }
        };
    }

    /** The {@code backend} tag of what made a decision. */
    static String backendTag(DecisionSource source) {
        return switch (source) {
            case REDIS -> "redis";
            case MEMORY -> "memory";
            case LOCAL_FALLBACK -> "local-fallback";
            case LOCAL_DENY_CACHE -> "local-deny-cache";
            case FAILURE_POLICY -> "failure-policy";
            case UNLIMITED -> "unlimited";
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
