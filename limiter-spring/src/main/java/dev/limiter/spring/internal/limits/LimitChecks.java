package dev.limiter.spring.internal.limits;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.spring.LimiterConfigurationException;

/**
 * The bounds of a limiter's values, whether a property or an annotation attribute sets them: each check
 * refuses a value naming where it was set ({@code where}), the value and the fix. Knows nothing of
 * Spring Boot.
 */
public final class LimitChecks {

    private LimitChecks() {
    }

    /** {@code value}, when it is a count from 1 to {@link LimitSpec#MAX_LIMIT}; {@code what} names the count. */
    public static long positive(long value, String where, String what) {
        if (value < 1 || value > LimitSpec.MAX_LIMIT) {
            throw new LimiterConfigurationException(where, value, "The " + what + " must be between 1 and " + LimitSpec.MAX_LIMIT,
                    "Set a whole number of at least 1");
        }
        return value;
    }

    public static Duration window(Duration window, String where) {
        if (window.isNegative() || window.isZero() || window.compareTo(LimitSpec.MAX_WINDOW) > 0) {
            throw new LimiterConfigurationException(where, window, "The window must be positive and at most " + LimitSpec.MAX_WINDOW.toDays()
                    + " days", "Set a window such as 1s, 10s or 1h");
        }
        return window;
    }

    /** Refuses a burst other than the limit for an algorithm without a bucket. */
    public static void burst(Algorithm algorithm, long limit, long burst, String where) {
        if (!algorithm.isBucket() && burst != limit) {
            throw new LimiterConfigurationException(where, burst, "A burst applies only to bucket algorithms, not to " + algorithm,
                    "Remove the burst, or choose algorithm token-bucket, leaky-bucket or gcra");
        }
    }

    /**
     * {@code maxWait}, refused here with the property or attribute that set it: the limiter's config would
     * refuse it too, but could only blame the limits.
     */
    public static Duration maxWait(Duration maxWait, String where) {
        if (maxWait.isNegative() || maxWait.compareTo(RateLimiterConfig.MAX_WAIT) > 0 || maxWait.getNano() % 1_000 != 0) {
            throw new LimiterConfigurationException(where, maxWait, "max-wait must be whole microseconds between 0 and "
                    + RateLimiterConfig.MAX_WAIT + " (1 day) but was " + maxWait, "Set " + where + " to a duration from 0s to 1d, "
                    + "such as 500ms: how long a caller may wait for its permits");
        }
        return maxWait;
    }

    /** The limit, refused naming {@code where} when {@link LimitSpec} refuses it. */
    public static LimitSpec spec(long limit, Duration window, long burst, String where) {
        try {
            return new LimitSpec(limit, window, burst);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where, limit + "/" + window + " burst " + burst, String.valueOf(ex.getMessage()),
                    "Choose a limit, window and burst within those bounds");
        }
    }
}
