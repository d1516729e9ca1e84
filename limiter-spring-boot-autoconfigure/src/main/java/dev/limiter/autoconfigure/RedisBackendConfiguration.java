package dev.limiter.autoconfigure;

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
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Limiters sharing their state through Redis, when a {@link RedisConnectionFactory} exists and
 * {@code limiter.backend} is not {@code memory}. While Redis fails they decide in memory.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBean(RedisConnectionFactory.class)
@Conditional(BackendCondition.class)
class RedisBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean(RateLimiterFactory.class)
    RedisRateLimiterFactory redisRateLimiterFactory(RedisConnectionFactory connectionFactory, LimiterProperties properties,
            ObjectProvider<LimiterClock> clock) {
        // A template of our own: the application's templates may carry other serializers.
        StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
        RedisRateLimiterFactory factory;
        try {
            factory = new RedisRateLimiterFactory(redis).withKeyPrefix(properties.getKeyPrefix());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException("limiter.key-prefix", properties.getKeyPrefix(), ex.getMessage(),
                    "Choose a prefix such as 'limiter' or 'myapp:limiter'");
        }
        LimiterClock explicitClock = clock.getIfAvailable();
        if (explicitClock != null) {
            factory = factory.withClock(explicitClock);
        }
        return factory.withFallback(MemoryBackendConfiguration.inMemory(properties, explicitClock));
    }
}
