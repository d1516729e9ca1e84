package dev.limiter.autoconfigure.actuate;

import java.util.List;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterDefinitions;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.LimiterRetuner;
import dev.limiter.autoconfigure.web.ConfiguredRules;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.RateLimitRule;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Actuator support: the {@code limiters} endpoint and the {@code limiters} health indicator of the
 * Redis backend.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class)
@ConditionalOnBean(RateLimiterRegistry.class)
public final class LimiterActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    @ConditionalOnAvailableEndpoint(LimitersEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(LimiterDefinitions.class)
        LimitersEndpoint limitersEndpoint(RateLimiterRegistry registry, LimiterDefinitions definitions,
                ObjectProvider<RedisRateLimiterFactory> redis, Environment environment, LimiterRetuner retuner,
                LimiterProperties properties, BeanFactory beans) {
            return new LimitersEndpoint(registry, definitions, redis.getIfAvailable(), environment, retuner, () -> rules(properties, beans));
        }

        /**
         * The rules of limiter.rules when a web application applies them (its rule filter is registered,
         * looked up when the endpoint is read); none otherwise. Read from the properties again: the
         * rules the filter holds are no bean, since Spring would introspect RateLimitRules' servlet
         * signatures, which a WebFlux application without the servlet API cannot load.
         */
        private static List<RateLimitRule> rules(LimiterProperties properties, BeanFactory beans) {
            if (!beans.containsBean("rateLimitRuleFilter") && !beans.containsBean("rateLimitRuleWebFilter")) {
                return List.of();
            }
            return ConfiguredRules.rules(properties);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnBean(RedisRateLimiterFactory.class)
    @ConditionalOnEnabledHealthIndicator("limiters")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "limitersHealthIndicator")
        HealthIndicator limitersHealthIndicator(RedisRateLimiterFactory redis, LimiterProperties properties) {
            return new LimitersHealthIndicator(redis, properties);
        }

    }
}
