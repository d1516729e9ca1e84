package dev.limiter.autoconfigure;

import dev.limiter.DecisionListener;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterFactory;
import dev.limiter.autoconfigure.LimiterProperties.Backend;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Limiters keeping their state in this process, when the Redis backend is not in use. */
@Configuration(proxyBeanMethods = false)
class MemoryBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean(RateLimiterFactory.class)
    InMemoryRateLimiterFactory inMemoryRateLimiterFactory(LimiterProperties properties, ObjectProvider<LimiterClock> clock,
            ObjectProvider<DecisionListener> listeners) {
        if (properties.getBackend() == Backend.REDIS) {
            throw new LimiterConfigurationException("limiter.backend", "redis", "No RedisConnectionFactory is configured",
                    "Add spring-boot-starter-data-redis and set spring.data.redis.host/port, or set limiter.backend=auto or memory");
        }
        return inMemory(properties, clock.getIfAvailable()).listener(CompositeDecisionListener.of(listeners.orderedStream().toList())).build();
    }

    /** The in-memory limiters as configured, for the memory backend or the local failure policy. */
    static InMemoryRateLimiterFactory.Builder inMemory(LimiterProperties properties, @Nullable LimiterClock clock) {
        long maxKeys = properties.getMemory().getMaxKeys();
        if (maxKeys < 1) {
            throw new LimiterConfigurationException("limiter.memory.max-keys", maxKeys, "At least one key must fit in memory",
                    "Set limiter.memory.max-keys to a positive number, such as 100000");
        }
        return InMemoryRateLimiterFactory.builder().clock((clock != null) ? clock : LimiterClock.system()).maxKeys(maxKeys);
    }
}
