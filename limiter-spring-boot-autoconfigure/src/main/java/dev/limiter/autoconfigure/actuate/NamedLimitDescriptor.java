package dev.limiter.autoconfigure.actuate;

/**
 * What {@code GET /actuator/limiters/{name}} answers: a limiter ({@link LimiterDescriptor}) or a
 * concurrency limit ({@link ConcurrencyLimitDescriptor}).
 */
public sealed interface NamedLimitDescriptor permits LimiterDescriptor, ConcurrencyLimitDescriptor {
}
