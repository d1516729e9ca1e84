package dev.limiter;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * How much a limiter admits: {@code limit} permits per {@code window}, and for bucket algorithms a
 * capacity of {@code burst} permits (the sustained rate is then limit/window).
 *
 * @param limit permits per window, at least 1
 * @param window length of the window, at least one microsecond and at most {@link #MAX_WINDOW}
 * @param burst bucket capacity, at least 1; algorithms without a bucket ignore it
 */
public record LimitSpec(long limit, Duration window, long burst) {

    /** Longest window supported: a year, far inside the exact range of the scripts' arithmetic. */
    public static final Duration MAX_WINDOW = Duration.ofDays(366);

    /** Largest limit or burst supported. */
    public static final long MAX_LIMIT = Integer.MAX_VALUE;

    public LimitSpec {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + " but was " + limit);
        }
        if (window == null || window.compareTo(Duration.of(1, ChronoUnit.MICROS)) < 0 || window.compareTo(MAX_WINDOW) > 0) {
            throw new IllegalArgumentException("window must be between 1us and " + MAX_WINDOW + " but was " + window);
        }
        if (burst < 1 || burst > MAX_LIMIT) {
            throw new IllegalArgumentException("burst must be between 1 and " + MAX_LIMIT + " but was " + burst);
        }
    }

    /** {@code limit} permits per {@code window}, with a burst equal to the limit. */
    public static LimitSpec of(long limit, Duration window) {
        return new LimitSpec(limit, window, limit);
    }

    /** The same rate with another burst (bucket capacity). */
    public LimitSpec withBurst(long burst) {
        return new LimitSpec(limit, window, burst);
    }

    /** The window in whole microseconds, the unit every script and twin computes in. */
    long windowMicros() {
        return window.getSeconds() * 1_000_000L + window.getNano() / 1_000L;
    }

    @Override
    public String toString() {
        return limit + "/" + window + (burst != limit ? " burst " + burst : "");
    }
}
