package dev.limiter.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterDefinitions;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.LimiterRetuner;
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
         * The rules of limiter.rules, as declared, when a web application applies them (its rule filter
         * is registered, looked up when the endpoint is read); none otherwise. Read from the properties:
         * the rules themselves are held by the filter, whose class a WebFlux application cannot load.
         */
        private static List<RateLimitRule> rules(LimiterProperties properties, BeanFactory beans) {
            if (!beans.containsBean("rateLimitRuleFilter") && !beans.containsBean("rateLimitRuleWebFilter")) {
                return List.of();
            }
            List<RateLimitRule> rules = new ArrayList<>();
            List<LimiterProperties.Rule> declared = properties.getRules();
            for (int i = 0; i < declared.size(); i++) {
                LimiterProperties.Rule rule = declared.get(i);
                String limiter = (rule.getLimiter() != null) ? rule.getLimiter().trim() : "";
                rules.add(new RateLimitRule("limiter.rules[" + i + "]", rule.getPaths(), rule.getMethods(), rule.getWhen(), rule.getUnless(),
                        limiter, rule.getKey(), rule.getCost(), false));
            }
            return rules;
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
