package dev.limiter.autoconfigure.web;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.spring.web.RateLimitExceededHandler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Spring MVC integration of Limiter: rejected calls become {@code 429 Too Many Requests} with the
 * RateLimit header fields (unless limiter.headers.enabled=false).
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty(name = "limiter.enabled", matchIfMissing = true)
public final class LimiterWebMvcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitExceededHandler rateLimitExceededHandler(ObjectProvider<RateLimiterRegistry> registry, LimiterProperties properties) {
        return new RateLimitExceededHandler(properties.getHeaders().isEnabled() ? registry.getIfAvailable() : null);
    }
}
