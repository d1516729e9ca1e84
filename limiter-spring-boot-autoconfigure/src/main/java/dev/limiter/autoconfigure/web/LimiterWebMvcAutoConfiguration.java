package dev.limiter.autoconfigure.web;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.internal.ConfiguredRules;
import dev.limiter.spring.internal.web.RateLimitRules;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.web.RateLimitExceededHandler;
import dev.limiter.spring.internal.web.RateLimitRuleFilter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Spring MVC integration of Limiter: rejected calls become {@code 429 Too Many Requests} with the
 * RateLimit header fields (unless limiter.headers.enabled=false), and a servlet filter applies
 * {@code limiter.rules} (ordered by limiter.rule-filter-order, after Spring Security's filter).
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

    /**
     * The filter applying limiter.rules, registered even without rules (it then passes every request
     * on at once), so that rules need not be known when an application is processed ahead of time.
     * Spring MVC's exception handling answers its rejections, looked up when the first comes.
     */
    @Bean
    @ConditionalOnMissingBean(name = "rateLimitRuleFilter")
    FilterRegistrationBean<RateLimitRuleFilter> rateLimitRuleFilter(LimiterProperties properties, RateLimiterRegistry registry,
            RateLimitedMethods methods, @Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver) {
        RateLimitRuleFilter filter = new RateLimitRuleFilter(new RateLimitRules(ConfiguredRules.rules(properties), registry, methods),
                (request, response, handler, ex) -> {
                    HandlerExceptionResolver resolver = exceptionResolver.getIfAvailable();
                    return (resolver != null) ? resolver.resolveException(request, response, handler, ex) : null;
                });
        filter.setOrder(properties.getRuleFilterOrder());
        FilterRegistrationBean<RateLimitRuleFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("rateLimitRuleFilter");
        registration.setOrder(filter.getOrder());
        return registration;
    }
}
