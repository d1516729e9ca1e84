package dev.limiter.internal.algorithm;

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
     * Gives {@code permits} back to the state of one key at {@code now} (microseconds), as the
     * algorithm's refund script does: every limit gets them back, never beyond whole. A key with
     * nothing to give back (idle, or whole again by now) is left unchanged; one whole after the refund
     * is forgotten (a null state).
     *
     * @param state the key's state, or null when it is idle
     * @param permits permits to give back, at least 1
     * @return the key's quota after the refund, as a decision that allowed nothing, and the state after it
     */
    Step<S> refund(@Nullable S state, RateLimiterConfig config, long now, long permits);

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

        /**
         * A refund's outcome: unchanged when it gave nothing back, forgotten when the key is whole
         * again (every limit's reset-after is 0), else the new state.
         */
        static <S> Step<S> refunded(Decision decision, boolean changed, S state, long[] reset) {
            if (!changed) {
                return unchanged(decision);
            }
            long ttl = Verdict.ttl(reset);
            return (ttl > 0) ? new Step<>(decision, state, true, ttl) : new Step<>(decision, null, true, 0);
        }
    }
}
