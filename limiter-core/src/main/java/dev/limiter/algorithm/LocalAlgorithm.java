package dev.limiter.algorithm;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;


/**
 * The in-memory twin of an algorithm's Lua script: the same decision with the same arithmetic, on
 * state held in the process instead of in Redis. For backends: the in-memory limiters run it, and the
 * Redis limiters run it on what Redis last said when Redis does not answer.
 *
 * @param <S> immutable state of one key
 */
public interface LocalAlgorithm<S> {

    /** The twin of {@code algorithm}'s script. */
    static LocalAlgorithm<?> of(Algorithm algorithm) {
        return switch (algorithm) {
            case FIXED_WINDOW -> FixedWindow.INSTANCE;
            case SLIDING_WINDOW -> SlidingWindow.INSTANCE;
            case SLIDING_LOG -> SlidingLog.INSTANCE;
            case TOKEN_BUCKET -> TokenBucket.INSTANCE;
            case LEAKY_BUCKET -> LeakyBucket.INSTANCE;
            case GCRA -> Gcra.INSTANCE;
        };
    }

    /**
     * Applies a request for {@code permits} at {@code now} (microseconds) to the state of one key.
     *
     * @param state the key's state, or null when it is idle (never used, or expired)
     * @return the decision and the state after it
     */
    Step<S> apply(@Nullable S state, RateLimiterConfig config, long now, long permits);

    /**
     * Outcome of one request: the decision and what to keep.
     *
     * @param state the new state, or null to forget the key
     * @param changed whether the state must be written (false: keep the old state and its expiry)
     * @param ttlMicros how long the new state matters; after that the key is idle again
     */
    record Step<S>(Decision decision, @Nullable S state, boolean changed, long ttlMicros) {

        static <S> Step<S> unchanged(Decision decision) {
            return new Step<>(decision, null, false, 0);
        }
    }
}
