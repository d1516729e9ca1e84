package dev.limiter;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * The answer of a rate limiter to one request: whether it may proceed, and how the quota stands
 * afterwards.
 *
 * @param allowed whether the request may proceed (its permits have been taken)
 * @param limit the number of permits the limiter grants per window (the burst for bucket algorithms)
 * @param remaining permits still available right now, after this request
 * @param resetAfter time until the quota is whole again if no further request arrives
 * @param retryAfter for a rejected request, the time after which the same request could pass;
 *     {@link Duration#ZERO} for an allowed one; {@link #NEVER} when it asks for more permits than
 *     the limiter can ever grant
 */
public record Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter) {

    /** Retry-after of a request that can never pass, because it costs more than the capacity. */
    public static final Duration NEVER = ChronoUnit.FOREVER.getDuration();

    public Decision {
        if (limit < 0 || remaining < 0) {
            throw new IllegalArgumentException("limit and remaining must not be negative: " + limit + ", " + remaining);
        }
        if (resetAfter == null || resetAfter.isNegative() || retryAfter == null || retryAfter.isNegative()) {
            throw new IllegalArgumentException("resetAfter and retryAfter must be zero or positive");
        }
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
     * Builds a decision from the reply shared by every algorithm's script and in-memory twin:
     * allowed flag, remaining permits, reset-after and retry-after in microseconds (retry-after
     * negative for "never").
     */
    static Decision of(boolean allowed, long limit, long remaining, long resetAfterMicros, long retryAfterMicros) {
        Duration retryAfter = retryAfterMicros < 0 ? NEVER : Duration.of(retryAfterMicros, ChronoUnit.MICROS);
        return new Decision(allowed, limit, Math.max(0, remaining), Duration.of(Math.max(0, resetAfterMicros), ChronoUnit.MICROS),
                retryAfter);
    }
}
