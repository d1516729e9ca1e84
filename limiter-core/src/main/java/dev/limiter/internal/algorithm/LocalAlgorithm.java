package dev.limiter.internal.algorithm;

import java.time.Duration;
import java.util.Objects;

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
     * As {@link #apply(Object, RateLimiterConfig, long, long)}, letting the request wait up to
     * {@code maxWait} microseconds instead of the configuration's max-wait.
     */
    Step<S> apply(@Nullable S state, RateLimiterConfig config, long now, long permits, long maxWait);

    /**
     * A max-wait beyond any wait a decision computes: 2^53 - 1 microseconds, the largest whole number
     * a Lua double holds, as {@code charge.lua} passes it.
     */
    long CHARGE_WAIT = 9_007_199_254_740_991L;

    /**
     * The most decisions one charge makes: a charge above this many times the smallest capacity is
     * refused ({@link #chargeChunk}), so that a script call stays short.
     */
    long MAX_CHARGE_CHUNKS = 1_000;

    /**
     * Takes {@code permits} from the state of one key at {@code now} (microseconds) whatever the limits
     * say, as {@code charge.lua} does: decisions of the algorithm's own arithmetic, each for at most the
     * smallest capacity of the limits and waiting as long as it takes, one after the other at the same
     * instant. So a charge is exactly a run of admitted requests that wait: beyond the limit the key is in
     * debt, and later requests wait or are rejected until time has paid it off.
     *
     * @param state the key's state, or null when it is idle
     * @param permits permits to take, at least 1
     * @return the key's quota after the charge, as a decision that allowed nothing, and the state after it
     */
    default Step<S> charge(@Nullable S state, RateLimiterConfig config, long now, long permits) {
        long chunk = chargeChunk(config, permits);
        @Nullable S current = state;
        Step<S> step = null;
        long left = permits;
        while (left > 0) {
            long take = Math.min(left, chunk);
            step = apply(current, config, now, take, CHARGE_WAIT);
            if (!step.decision().allowed()) {
                throw new IllegalStateException("A charge of " + take + " was not admitted: " + step.decision());
            }
            current = step.state();
            left -= take;
        }
        Step<S> last = Objects.requireNonNull(step);
        // The reply of charge.lua: the quota after the last decision, which decided nothing to report.
        Decision d = last.decision();
        Decision quota = new Decision(false, d.limit(), d.remaining(), d.resetAfter(), d.limitResetAfter(), Duration.ZERO, Duration.ZERO,
                null, d.source());
        return new Step<>(quota, last.state(), true, last.ttlMicros());
    }

    /**
     * The permits one decision of a charge takes: the smallest capacity of the limits, all a decision can
     * take.
     *
     * @throws IllegalArgumentException for a charge above {@link #MAX_CHARGE_CHUNKS} times that
     */
    static long chargeChunk(RateLimiterConfig config, long permits) {
        long chunk = Long.MAX_VALUE;
        for (int i = 0; i < config.limits().size(); i++) {
            chunk = Math.min(chunk, config.capacity(i));
        }
        if (permits > chunk * MAX_CHARGE_CHUNKS) {
            throw new IllegalArgumentException("Cannot charge " + permits + " permits beyond the estimate at once: at most "
                    + MAX_CHARGE_CHUNKS + " times the smallest capacity (" + chunk + "), " + (chunk * MAX_CHARGE_CHUNKS)
                    + "; estimate the cost closer to the actual one, or raise the limit's capacity");
        }
        return chunk;
    }

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
