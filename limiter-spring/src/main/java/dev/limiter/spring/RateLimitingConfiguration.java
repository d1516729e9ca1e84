package dev.limiter.spring;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.DecisionListener;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.internal.interceptor.RateLimitedAdvisingPostProcessor;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.web.ClientIpResolver;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.context.annotation.Role;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;

/**
 * What {@link EnableRateLimiting} imports: the interception of {@code @RateLimited} methods, each
 * limiter defined by its annotation's values and created by the application's
 * {@link RateLimiterFactory} (or {@link RateLimiterRegistry}).
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class RateLimitingConfiguration implements ImportAware {

    private MissingKeyPolicy onMissingKey = MissingKeyPolicy.REJECT;

    private boolean headerFields = true;

    @Override
    public void setImportMetadata(AnnotationMetadata importMetadata) {
        AnnotationAttributes attributes = AnnotationAttributes.fromMap(importMetadata.getAnnotationAttributes(EnableRateLimiting.class.getName()));
        if (attributes != null) {
            this.onMissingKey = attributes.getEnum("onMissingKey");
            this.headerFields = attributes.getBoolean("headerFields");
        }
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    RateLimitedMethods rateLimitedMethods(ObjectProvider<RateLimiterRegistry> registry, ObjectProvider<RateLimiterFactory> factory,
            ObjectProvider<DecisionListener> listener, ObjectProvider<ClientIpResolver> clientIps, ObjectProvider<ConcurrencyLimiter> concurrency,
            BeanFactory beanFactory) {
        RateLimiterRegistry limiters = registry.getIfUnique(() -> new RateLimiterRegistry(factory.getObject()));
        return new RateLimitedMethods(new AnnotationLimiterResolver(limiters, () -> concurrency.orderedStream().toList()), beanFactory, onMissingKey, headerFields,
                listener.getIfUnique(() -> DecisionListener.NONE), clientIps.getIfUnique(() -> ClientIpResolver.DIRECT));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedAdvisingPostProcessor rateLimitedAdvisingPostProcessor(ObjectProvider<RateLimitedMethods> methods) {
        return new RateLimitedAdvisingPostProcessor(methods::getObject);
    }
}
