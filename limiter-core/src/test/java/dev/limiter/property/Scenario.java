package dev.limiter.property;

import java.util.List;

import dev.limiter.RateLimiterConfig;

/**
 * A limiter configuration and the requests to run against it from a start time.
 *
 * @param name where the scenario comes from: a seed, or a boundary case
 * @param config the limiter's configuration
 * @param startMicros time of the clock before the first request
 * @param ops the requests, in order
 */
public record Scenario(String name, RateLimiterConfig config, long startMicros, List<Op> ops) {

    public Scenario {
        ops = List.copyOf(ops);
    }

    Scenario withOps(List<Op> ops) {
        return new Scenario(name, config, startMicros, ops);
    }
}
