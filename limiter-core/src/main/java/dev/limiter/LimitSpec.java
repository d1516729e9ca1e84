package dev.limiter;

import java.io.Serializable;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

/**
 * How much a limiter admits: {@code limit} permits per {@code window}, and for bucket algorithms a
 * capacity of {@code burst} permits (the sustained rate is then limit/window).
 *
 * @param limit permits per window, at least 1
 * @param window length of the window: whole microseconds, at least one and at most {@link #MAX_WINDOW}
 * @param burst bucket capacity, at least 1, such that an empty bucket refills within
 *     {@link #MAX_WINDOW}; algorithms without a bucket ignore it
 * @param calendar null for windows aligned to the epoch; else the calendar the (fixed) windows follow,
 *     {@code window} then being its unit's nominal length (docs/calendar-windows.md)
 */
public record LimitSpec(long limit, Duration window, long burst, @Nullable CalendarWindow calendar) implements Serializable {

    /**
     * Longest window, and longest time an empty bucket may take to refill: a year, which keeps every
     * time the scripts compute, in microseconds, far inside the exact range of their arithmetic.
     */
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
        if (window.getNano() % 1_000 != 0) {
            throw new IllegalArgumentException("window must be a whole number of microseconds but was " + window);
        }
        if (burst < 1 || burst > MAX_LIMIT) {
            throw new IllegalArgumentException("burst must be between 1 and " + MAX_LIMIT + " but was " + burst);
        }
        // Bound checked in doubles: exact enough for a limit, and the product can exceed a long.
        double refillMicros = (double) burst * (window.getSeconds() * 1e6 + window.getNano() / 1e3) / limit;
        if (refillMicros > MAX_WINDOW.getSeconds() * 1e6) {
            throw new IllegalArgumentException("burst " + burst + " at " + limit + " per " + window + " would take "
                    + Duration.ofSeconds((long) Math.min(Long.MAX_VALUE, refillMicros / 1e6)).toDays() + " days to refill; at most "
                    + MAX_WINDOW.toDays() + " days are supported: lower the burst or raise the rate");
        }
        if (calendar != null && !window.equals(calendar.unit().nominal())) {
            throw new IllegalArgumentException("a " + calendar + " has the window " + calendar.unit().nominal() + " but was given " + window);
        }
    }

    /** {@code limit} permits per {@code window} aligned to the epoch, and a burst for bucket algorithms. */
    public LimitSpec(long limit, Duration window, long burst) {
        this(limit, window, burst, null);
    }

    /** {@code limit} permits per window of {@code calendar} (fixed-window only). */
    public static LimitSpec perCalendar(long limit, CalendarWindow calendar) {
        return new LimitSpec(limit, calendar.unit().nominal(), limit, calendar);
    }

    /** {@code limit} permits per {@code window}, with a burst equal to the limit. */
    public static LimitSpec of(long limit, Duration window) {
        return new LimitSpec(limit, window, limit);
    }

    /** The same rate with another burst (bucket capacity). */
    public LimitSpec withBurst(long burst) {
        return new LimitSpec(limit, window, burst, calendar);
    }

    /** The window in whole microseconds, the unit every script and twin computes in. */
    public long windowMicros() {
        return window.getSeconds() * 1_000_000L + window.getNano() / 1_000L;
    }

    @Override
    public String toString() {
        return limit + "/" + ((calendar != null) ? calendar : window) + (burst != limit ? " burst " + burst : "");
    }
}
