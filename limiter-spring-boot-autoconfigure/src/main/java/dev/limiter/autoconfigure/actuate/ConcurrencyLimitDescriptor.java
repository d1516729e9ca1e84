package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * A concurrency limit ({@code limiter.concurrency-limits.<name>}): at most {@code limit} calls in flight
 * per key across every instance, slots leased for {@code lease} and renewed while calls run, waiting up to
 * {@code maxWait} (ISO-8601 durations); {@code onRedisFailure} is its own failure policy, null for the
 * default; {@code inUse} the slots this instance holds now, over every key.
 */
public record ConcurrencyLimitDescriptor(long limit, String lease, String maxWait, @Nullable String onRedisFailure, int inUse) implements NamedLimitDescriptor {
}
