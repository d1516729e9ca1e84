package dev.limiter.autoconfigure;

import java.time.Duration;

import dev.limiter.DecisionListener;
import dev.limiter.InMemoryRateLimiterFactory;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RedisRateLimiterFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Limiters sharing their state through Redis, when a {@link RedisConnectionFactory} exists and
 * {@code limiter.backend} is not {@code memory}. While Redis fails they follow
 * {@code limiter.on-redis-failure}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBean(RedisConnectionFactory.class)
@Conditional(BackendCondition.class)
class RedisBackendConfiguration {

    @Bean
    LimiterRedisConnection limiterRedisConnection(RedisConnectionFactory connectionFactory, LimiterProperties properties) {
        LimiterProperties.Redis redis = properties.getRedis();
        positive(redis.getTimeout(), "limiter.redis.timeout", "100ms");
        positive(redis.getConnectTimeout(), "limiter.redis.connect-timeout", "1s");
        return new LimiterRedisConnection(connectionFactory, redis.getTimeout(), redis.getConnectTimeout());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(RateLimiterFactory.class)
    RedisRateLimiterFactory redisRateLimiterFactory(LimiterRedisConnection connection, LimiterProperties properties,
            ObjectProvider<LimiterClock> clock, ObjectProvider<DecisionListener> listeners) {
        LimiterProperties.Redis redis = properties.getRedis();
        positive(redis.getProbeInterval(), "limiter.redis.probe-interval", "250ms");
        positive(redis.getHeartbeatInterval(), "limiter.redis.heartbeat-interval", "5s");
        if (redis.getOutageAfter() == null || redis.getOutageAfter().isNegative()) {
            throw new LimiterConfigurationException("limiter.redis.outage-after", redis.getOutageAfter(), "The duration must not be negative",
                    "Set it to a duration such as 1s, or 0 to treat every failed call as an outage");
        }
        if (redis.getExpectedInstances() != null && redis.getExpectedInstances() < 1) {
            throw new LimiterConfigurationException("limiter.redis.expected-instances", redis.getExpectedInstances(),
                    "At least one instance shares each limit",
                    "Set the number of instances of the application, such as 3, or remove it to count them by heartbeat");
        }
        RedisRateLimiterFactory factory;
        try {
            factory = new RedisRateLimiterFactory(connection.template()).withKeyPrefix(properties.getKeyPrefix());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException("limiter.key-prefix", properties.getKeyPrefix(), ex.getMessage(),
                    "Choose a prefix such as 'limiter' or 'myapp:limiter'");
        }
        LimiterClock explicitClock = clock.getIfAvailable();
        if (explicitClock != null) {
            factory = factory.withClock(explicitClock);
        }
        if (connection.reactiveTemplate() != null) {
            // Methods returning Mono, Flux or CompletionStage are then decided without blocking a thread.
            factory = factory.withReactiveRedis(connection.reactiveTemplate());
        }
        // After a cluster master dies, each failed probe makes the client look for the promoted replica.
        factory = factory.withListener(CompositeDecisionListener.of(listeners.orderedStream().toList()))
            .withProbeInterval(redis.getProbeInterval())
            .withOutageAfter(redis.getOutageAfter())
            .withHeartbeatInterval(redis.getHeartbeatInterval())
            .withRecoveryAction(connection::reloadClusterTopology);
        InMemoryRateLimiterFactory local = MemoryBackendConfiguration.inMemory(properties, explicitClock);
        factory = (redis.getExpectedInstances() != null)
                ? factory.withFailurePolicy(properties.getOnRedisFailure(), local, redis.getExpectedInstances())
                : factory.withFailurePolicy(properties.getOnRedisFailure(), local);
        LimiterProperties.LocalDenyCache denyCache = properties.getLocalDenyCache();
        if (denyCache.isEnabled()) {
            if (denyCache.getMaxKeys() < 1) {
                throw new LimiterConfigurationException("limiter.local-deny-cache.max-keys", denyCache.getMaxKeys(),
                        "The local deny cache must hold at least one key", "Set it to a positive number, such as 10000");
            }
            factory = factory.withLocalDenyCache(denyCache.getMaxKeys());
        }
        // Connect and load the scripts at startup rather than in the first requests.
        factory.warmUp();
        return factory;
    }

    private static void positive(Duration duration, String property, String example) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new LimiterConfigurationException(property, duration, "The duration must be positive", "Set it to a duration such as " + example);
        }
    }
}
