package dev.limiter;

import java.time.Duration;

/**
 * How the quota of one key stands, read without taking a permit. With several limits, {@code limit}
 * and {@code remaining} are those of the limit with the fewest permits left, as in a {@link Decision}.
 *
 * @param limit the most permits that limit grants at once (its limit, or its burst for bucket algorithms)
 * @param remaining permits available right now under that limit
 * @param resetAfter time until every limit is whole again if no request arrives
 * @param source what answered: Redis, memory, or a failure policy while Redis fails
 */
public record Quota(long limit, long remaining, Duration resetAfter, DecisionSource source) {

    public Quota {
        if (limit < 0 || remaining < 0 || resetAfter == null || resetAfter.isNegative() || source == null) {
            throw new IllegalArgumentException("limit, remaining and resetAfter must not be negative, source not null");
        }
    }

    /** The quota a decision that took nothing reports. For backends. */
    public static Quota of(Decision decision) {
        return new Quota(decision.limit(), decision.remaining(), decision.resetAfter(), decision.source());
    }
}
