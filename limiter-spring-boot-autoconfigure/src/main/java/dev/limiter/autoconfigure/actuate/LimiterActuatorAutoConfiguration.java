package dev.limiter.autoconfigure.actuate;

import java.util.List;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.ConcurrencyLimiters;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.LimiterRetuner;
import dev.limiter.autoconfigure.LimiterSites;
import dev.limiter.autoconfigure.internal.ConfiguredRules;
import dev.limiter.autoconfigure.internal.DefinedLimiters;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.internal.web.RateLimitRule;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Actuator support: the {@code limiters} endpoint, whose operations changing limits or state are off
 * unless limiter.endpoint.write-operations.enabled is set, and the {@code limiters} health indicator of
 * the Redis backend.
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
        @ConditionalOnBean(DefinedLimiters.class)
        LimitersEndpoint limitersEndpoint(RateLimiterRegistry registry, DefinedLimiters definitions,
                ObjectProvider<RedisRateLimiterFactory> redis, Environment environment, LimiterRetuner retuner,
                LimiterProperties properties, BeanFactory beans, ObjectProvider<ConcurrencyLimiters> concurrency,
                ObjectProvider<LimiterSites> sites) {
            return new LimitersEndpoint(registry, definitions, redis.getIfAvailable(), environment, retuner, () -> rules(properties, beans),
                    concurrency.getIfAvailable(), () -> sites.orderedStream().toList());
        }

        /** Guards the endpoint's operations: writes off unless turned on, unknown or null fields refused, messages on 404. */
        @Bean
        @ConditionalOnBean(DefinedLimiters.class)
        static LimitersEndpointRequests limitersEndpointRequests(LimiterProperties properties, RateLimiterRegistry registry,
                DefinedLimiters definitions) {
            return new LimitersEndpointRequests(properties, registry, definitions);
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

    /** A body the endpoint cannot read answered with a message, in a Spring MVC application. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ Endpoint.class, HandlerExceptionResolver.class, PathMappedEndpoints.class })
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnAvailableEndpoint(LimitersEndpoint.class)
    static class WebMvcBodyConfiguration {

        @Bean
        LimitersEndpointBodyErrors limitersEndpointBodyErrors(ObjectProvider<PathMappedEndpoints> endpoints) {
            return new LimitersEndpointBodyErrors(() -> {
                PathMappedEndpoints mapped = endpoints.getIfAvailable();
                return (mapped != null) ? mapped.getPath(EndpointId.of("limiters")) : null;
            });
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
