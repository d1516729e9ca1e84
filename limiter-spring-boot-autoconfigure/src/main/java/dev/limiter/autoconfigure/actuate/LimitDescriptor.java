package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/** One limit: permits per window, and the burst of a bucket algorithm. */
public record LimitDescriptor(long limit, String window, @Nullable Long burst) {
}
