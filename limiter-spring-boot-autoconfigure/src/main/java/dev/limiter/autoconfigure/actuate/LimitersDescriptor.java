package dev.limiter.autoconfigure.actuate;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * All limiters, and the backend they keep their state in ({@code redis} or {@code memory}); for
 * Redis, its state; and the concurrency limits ({@code limiter.concurrency-limits}), empty when none.
 */
public record LimitersDescriptor(String backend, @Nullable RedisDescriptor redis, Map<String, LimiterDescriptor> limiters,
        Map<String, ConcurrencyLimitDescriptor> concurrencyLimits) {
}
