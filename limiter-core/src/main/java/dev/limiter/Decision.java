package dev.limiter;

import java.io.Serializable;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The answer of a rate limiter to one request: whether it may proceed, and how the quota stands
 * afterwards. With several limits, {@code limit}, {@code remaining} and {@code limitResetAfter} are
 * those of the limit with the fewest permits left.
 *
 * @param allowed whether the request may proceed (its permits have been taken)
 * @param limit the most permits that limit grants at once (its limit, or its burst for bucket algorithms)
 * @param remaining permits still available right now under that limit, after this request
 * @param resetAfter time until every limit is whole again if no further request arrives
 * @param limitResetAfter time until that limit is whole again if no further request arrives; at most
 *     {@code resetAfter}, and equal to it with a single limit
 * @param retryAfter for a rejected request, the time after which the same request could pass;
 *     {@link Duration#ZERO} for an allowed one; {@link #NEVER} when it asks for more permits than
 *     the limiter can ever grant
 * @param waitFor for an allowed request of a limiter with max-wait, how long the caller must wait
 *     before proceeding; {@link Duration#ZERO} otherwise
 * @param violatedLimit for a rejected request, the limit that rejected it; null when allowed
 * @param source what made the decision: Redis, memory, the local deny cache, or a failure policy
 *     while Redis fails. Not compared by {@link #equals}: two decisions are equal when they decide
 *     the same, wherever they were made.
 */
public record Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration limitResetAfter, Duration retryAfter,
        Duration waitFor, @Nullable LimitSpec violatedLimit, DecisionSource source) implements Serializable {

    /** Retry-after of a request that can never pass, because it costs more than the capacity. */
    public static final Duration NEVER = ChronoUnit.FOREVER.getDuration();

    public Decision {
        if (limit < 0 || remaining < 0) {
            throw new IllegalArgumentException("limit and remaining must not be negative: " + limit + ", " + remaining);
        }
        if (resetAfter == null || resetAfter.isNegative() || retryAfter == null || retryAfter.isNegative() || waitFor == null
                || waitFor.isNegative()) {
            throw new IllegalArgumentException("resetAfter, retryAfter and waitFor must be zero or positive");
        }
        if (limitResetAfter == null || limitResetAfter.isNegative() || limitResetAfter.compareTo(resetAfter) > 0) {
            throw new IllegalArgumentException("limitResetAfter must be zero or positive and at most resetAfter: " + limitResetAfter
                    + ", " + resetAfter);
        }
        if (source == null) {
            throw new IllegalArgumentException("source must not be null");
        }
    }

    /**
     * A decision that does not tell the reset of the reported limit apart: it takes {@code resetAfter},
     * exact with a single limit.
     */
    public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter, Duration waitFor,
            @Nullable LimitSpec violatedLimit, DecisionSource source) {
        this(allowed, limit, remaining, resetAfter, resetAfter, retryAfter, waitFor, violatedLimit, source);
    }

    /** A decision made in memory. */
    public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter, Duration waitFor,
            @Nullable LimitSpec violatedLimit) {
        this(allowed, limit, remaining, resetAfter, retryAfter, waitFor, violatedLimit, DecisionSource.MEMORY);
    }

    /** A decision of a single limit, without waiting, made in memory. */
    public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter) {
        this(allowed, limit, remaining, resetAfter, retryAfter, Duration.ZERO, null);
    }

    /** The same decision, made by {@code source}. */
    public Decision from(DecisionSource source) {
        return new Decision(allowed, limit, remaining, resetAfter, limitResetAfter, retryAfter, waitFor, violatedLimit, source);
    }

    /** Equal when everything but the {@link #source} is. */
    @Override
    public boolean equals(@Nullable Object other) {
        return this == other || other instanceof Decision that && allowed == that.allowed && limit == that.limit && remaining == that.remaining
                && resetAfter.equals(that.resetAfter) && limitResetAfter.equals(that.limitResetAfter) && retryAfter.equals(that.retryAfter)
                && waitFor.equals(that.waitFor) && Objects.equals(violatedLimit, that.violatedLimit);
    }

    @Override
    public int hashCode() {
        return Objects.hash(allowed, limit, remaining, resetAfter, limitResetAfter, retryAfter, waitFor, violatedLimit);
    }

    /** Whether the request was rejected. */
    public boolean rejected() {
        return !allowed;
    }

    /** Whether the request was rejected because it costs more than the limiter can ever grant. */
    public boolean neverAllowed() {
        return !allowed && NEVER.equals(retryAfter);
    }

    /**
     * Builds a decision from the reply every script and twin gives (see docs/algorithms.md):
     * allowed, reported limit (1-based), remaining, reset-after, retry-after (-1: never), violated
     * limit (1-based, 0: none), wait, reset-after of the reported limit; times in microseconds. For
     * backends: applications get decisions from a {@link RateLimiter}.
     */
    public static Decision of(RateLimiterConfig config, long allowed, long reported, long remaining, long resetAfter, long retryAfter,
            long violated, long waitFor, long limitResetAfter, DecisionSource source) {
        Duration reset = RateLimiterConfig.micros(Math.max(0, resetAfter));
        // With one limit both resets are the same: one object, which the in-memory hot path notices.
        Duration limitReset = (Math.max(0, limitResetAfter) == Math.max(0, resetAfter)) ? reset
                : RateLimiterConfig.micros(Math.max(0, limitResetAfter));
        return new Decision(allowed == 1, config.capacity((int) reported - 1), Math.max(0, remaining), reset, limitReset,
                retryAfter < 0 ? NEVER : RateLimiterConfig.micros(retryAfter),
                RateLimiterConfig.micros(waitFor), violated > 0 ? config.limits().get((int) violated - 1) : null, source);
    }
}
