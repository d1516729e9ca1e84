package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * One limit: permits per window, and the burst of a bucket algorithm; a calendar window (1d, 1w, 1mo)
 * with its time zone and, for months, its anchor day.
 */
public record LimitDescriptor(long limit, String window, @Nullable Long burst, @Nullable String zone, @Nullable Integer anchorDay) {

    /** A limit of a window of fixed length. */
    public LimitDescriptor(long limit, String window, @Nullable Long burst) {
        this(limit, window, burst, null, null);
    }
}
