package dev.limiter.autoconfigure.actuate;

import java.util.Locale;

import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the limiters' backend: UP while Redis decides, {@code DEGRADED} while Redis fails and
 * the limiters follow their failure policy, with the reason (what Redis or the client said, such as
 * OOM, NOAUTH or a refused connection) and Redis' address in the details. The application still
 * serves then, so the status is not DOWN. Spring Boot's aggregation leaves out a status its order does not
 * name, so the application stays UP unless the order names it, e.g.
 * {@code management.endpoint.health.status.order=down,out-of-service,degraded,up,unknown} with
 * {@code management.endpoint.health.status.http-mapping.degraded=503}.
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
        boolean available = redis.isRedisAvailable();
        Health.Builder health = Health.status(available ? Status.UP : DEGRADED)
            .withDetail("backend", "redis")
            .withDetail("redis", redis.redisAddress())
            .withDetail("onRedisFailure", policy)
            .withDetail("instances", redis.instances())
            .withDetail("instancesCounted", !redis.isInstanceCountConfigured());
        String reason = redis.unavailableReason();
        if (!available && reason != null) {
            health.withDetail("reason", reason);
        }
        int uncharged = redis.unchargedKeys();
        if (uncharged > 0) {
            health.withDetail("keysOwingRedis", uncharged);
        }
        return health.build();
    }
}
