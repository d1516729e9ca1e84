package dev.limiter.autoconfigure;

import dev.limiter.DecisionListener;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.web.ClientIpResolver;
import dev.limiter.spring.internal.interceptor.RateLimitedAdvisingPostProcessor;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Auto-configuration of Limiter: a {@link RateLimiterRegistry} on the Redis or in-memory backend,
 * interception of {@code @RateLimited} methods, and the {@link LimiterRetuner} that applies changes of
 * {@code limiter.*} while the application runs (on Spring Cloud's {@code EnvironmentChangeEvent} too).
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "limiter.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LimiterProperties.class)
@Import({ RedisBackendConfiguration.class, MemoryBackendConfiguration.class })
public final class LimiterAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimiterRegistry rateLimiterRegistry(RateLimiterFactory rateLimiterFactory) {
        // The factory's limiters tell the DecisionListener beans of every decision, called directly or not.
        return new RateLimiterRegistry(rateLimiterFactory);
    }

    @Bean
    ConcurrencyLimiters concurrencyLimiters(LimiterProperties properties, RateLimiterFactory rateLimiterFactory) {
        return new ConcurrencyLimiters(properties, rateLimiterFactory);
    }

    @Bean
    LimiterDefinitions limiterDefinitions(LimiterProperties properties, RateLimiterRegistry registry, ConcurrencyLimiters concurrencyLimiters) {
        LimiterDefinitions definitions = new LimiterDefinitions(properties, registry, concurrencyLimiters);
        ConfiguredLimiters.register(definitions);
        return definitions;
    }

    @Bean
    RateLimitedMethods rateLimitedMethods(LimiterDefinitions definitions, BeanFactory beanFactory, LimiterProperties properties,
            ObjectProvider<DecisionListener> listeners, ClientIpResolver clientIpResolver) {
        return new RateLimitedMethods(definitions, beanFactory, properties.getOnMissingKey(), properties.getHeaders().isEnabled(),
                CompositeDecisionListener.of(listeners.orderedStream().toList()), clientIpResolver);
    }

    @Bean
    @ConditionalOnMissingBean
    ClientIpResolver clientIpResolver(LimiterProperties properties) {
        return ClientIps.resolver(properties.getClientIp());
    }

    @Bean
    LimiterRetuner limiterRetuner(LimiterDefinitions definitions, RateLimiterRegistry registry, ConfigurableEnvironment environment) {
        return new LimiterRetuner(definitions, registry, environment);
    }

    /** Spring Cloud's refresh and {@code POST /actuator/env} retune the limiters. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
    static class SpringCloudRetuneConfiguration {

        @Bean
        LimiterEnvironmentChangeListener limiterEnvironmentChangeListener(LimiterRetuner retuner) {
            return new LimiterEnvironmentChangeListener(retuner);
        }

    }

    /** Once every bean is created, a configured limiter that nothing completes is reported. */
    @Bean
    static SmartInitializingSingleton limiterConfigurationCheck(ObjectProvider<LimiterDefinitions> definitions,
            ObjectProvider<LimiterSites> sites) {
        return () -> ConfiguredLimiters.check(definitions.getObject(), sites.orderedStream().toList());
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedAdvisingPostProcessor rateLimitedAdvisingPostProcessor(ObjectProvider<RateLimitedMethods> methods) {
        return new RateLimitedAdvisingPostProcessor(methods::getObject);
    }
}
