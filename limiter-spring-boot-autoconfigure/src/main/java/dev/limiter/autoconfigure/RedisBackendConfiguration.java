package dev.limiter.autoconfigure;

import java.time.Duration;

import dev.limiter.DecisionListener;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterFactory;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveRedisOperations;

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
    LimiterRedisConnection limiterRedisConnection(RedisConnectionFactory connectionFactory, LimiterProperties properties,
            ObjectProvider<LimiterRedisClientCustomizer> customizers) {
        LimiterProperties.Redis redis = properties.getRedis();
        positive(redis.getTimeout(), "limiter.redis.timeout", "500ms");
        positive(redis.getConnectTimeout(), "limiter.redis.connect-timeout", "1s");
        return new LimiterRedisConnection(connectionFactory, redis.getTimeout(), redis.getConnectTimeout(),
                customizers.orderedStream().toList());
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
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(connection.template());
        try {
            builder.keyPrefix(properties.getKeyPrefix());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException("limiter.key-prefix", properties.getKeyPrefix(), String.valueOf(ex.getMessage()),
                    "Choose a prefix such as 'limiter' or 'myapp:limiter'");
        }
        LimiterClock explicitClock = clock.getIfAvailable();
        if (explicitClock != null) {
            builder.clock(explicitClock);
        }
        ReactiveRedisOperations<String, String> reactive = connection.reactiveTemplate();
        if (reactive != null) {
            // Methods returning Mono, Flux or CompletionStage are then decided without blocking a thread, and
            // by the failure policy at the latest a second after the longest of the command and connect timeouts.
            Duration deadline = LimiterRedisConnection.CommandTimeouts.longest(redis.getTimeout(), redis.getConnectTimeout()).plusSeconds(1);
            builder.reactiveRedis(reactive, deadline);
        }
        // After a cluster master dies, each failed probe makes the client look for the promoted replica.
        builder.listener(CompositeDecisionListener.of(listeners.orderedStream().toList()))
            .probeInterval(redis.getProbeInterval())
            .outageAfter(redis.getOutageAfter())
            .heartbeatInterval(redis.getHeartbeatInterval())
            .recoveryAction(connection::reloadClusterTopology)
            .failurePolicy(properties.getOnRedisFailure())
            .localLimiters(MemoryBackendConfiguration.inMemory(properties, explicitClock).build());
        if (redis.getExpectedInstances() != null) {
            builder.expectedInstances(redis.getExpectedInstances());
        }
        LimiterProperties.LocalDenyCache denyCache = properties.getLocalDenyCache();
        if (denyCache.isEnabled()) {
            if (denyCache.getMaxKeys() < 1) {
                throw new LimiterConfigurationException("limiter.local-deny-cache.max-keys", denyCache.getMaxKeys(),
                        "The local deny cache must hold at least one key", "Set it to a positive number, such as 10000");
            }
            builder.localDenyCache(denyCache.getMaxKeys());
        }
        LimiterProperties.Batching batching = redis.getBatching();
        if (batching.isEnabled()) {
            if (batching.getMaxSize() < 1) {
                throw new LimiterConfigurationException("limiter.redis.batching.max-size", batching.getMaxSize(),
                        "A batch must hold at least one decision", "Set it to a positive number, such as 64");
            }
            builder.batching(batching.getMaxSize());
        }
        // Connecting waits for RedisWarmUp, once every limiter is checked.
        return builder.build();
    }

    /** Connects and loads the scripts at startup rather than in the first requests, once the configuration is checked. */
    @Bean
    RedisWarmUp limiterRedisWarmUp(ObjectProvider<RedisRateLimiterFactory> factory) {
        return new RedisWarmUp(factory);
    }

    private static void positive(Duration duration, String property, String example) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new LimiterConfigurationException(property, duration, "The duration must be positive", "Set it to a duration such as " + example);
        }
    }
}
