package dev.limiter.autoconfigure.actuate;

import java.util.Locale;

import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the limiters' backend: UP while Redis decides, {@code DEGRADED} while Redis fails and
 * the limiters follow their failure policy. The application still serves then, so the status is not
 * DOWN; map it as you need, e.g. {@code management.endpoint.health.status.http-mapping.degraded=503}.
 */
final class LimitersHealthIndicator implements HealthIndicator {

    /** Redis fails; limiters decide by their failure policy. */
    static final Status DEGRADED = new Status("DEGRADED", "Redis fails: rate limiters follow their failure policy");

    private final RedisRateLimiterFactory redis;

    private final LimiterProperties properties;

    LimitersHealthIndicator(RedisRateLimiterFactory redis, LimiterProperties properties) {
        this.redis = redis;
        this.properties = properties;
    }

    @Override
    public Health health() {
        String policy = properties.getOnRedisFailure().name().toLowerCase(Locale.ROOT);
        Status status = redis.isRedisAvailable() ? Status.UP : DEGRADED;
        return Health.status(status)
            .withDetail("backend", "redis")
            .withDetail("onRedisFailure", policy)
            .withDetail("instances", redis.instances())
            .withDetail("instancesCounted", !redis.isInstanceCountConfigured())
            .build();
    }
}
