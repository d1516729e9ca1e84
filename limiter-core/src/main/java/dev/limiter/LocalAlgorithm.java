package dev.limiter;

/**
 * The in-memory twin of an algorithm's Lua script: the same decision with the same arithmetic, on
 * state held in the process instead of in Redis.
 *
 * @param <S> immutable state of one key
 */
interface LocalAlgorithm<S> {

    /**
     * Applies a request for {@code permits} at {@code now} (microseconds) to the state of one key.
     *
     * @param state the key's state, or null when it is idle (never used, or expired)
     * @return the decision and the state after it
     */
    Step<S> apply(S state, RateLimiterConfig config, long now, long permits);

    /**
     * Outcome of one request: the decision and what to keep.
     *
     * @param state the new state, or null to forget the key
     * @param changed whether the state must be written (false: keep the old state and its expiry)
     * @param ttlMicros how long the new state matters; after that the key is idle again
     */
    record Step<S>(Decision decision, S state, boolean changed, long ttlMicros) {

        static <S> Step<S> unchanged(Decision decision) {
            return new Step<>(decision, null, false, 0);
        }
    }
}
