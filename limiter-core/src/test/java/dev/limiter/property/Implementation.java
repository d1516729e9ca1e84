package dev.limiter.property;

import java.util.function.Function;

import dev.limiter.RateLimiterConfig;

/**
 * A named implementation: creates a fresh {@link Subject} (every key idle) for a configuration,
 * once per run and once per replay while shrinking.
 */
public record Implementation(String name, Function<RateLimiterConfig, Subject> factory) {

    Subject create(RateLimiterConfig config) {
        return factory.apply(config);
    }

    @Override
    public String toString() {
        return name;
    }
}
