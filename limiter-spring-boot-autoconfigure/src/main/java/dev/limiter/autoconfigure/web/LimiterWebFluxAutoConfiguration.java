package dev.limiter.autoconfigure.web;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.internal.ConfiguredRules;
import dev.limiter.spring.internal.web.RateLimitRules;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.web.RateLimitExceededHandler;
import dev.limiter.spring.internal.web.RateLimitRuleWebFilter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResultHandler;

/**
 * Spring WebFlux integration of Limiter: rejected calls become {@code 429 Too Many Requests}, as in
 * Spring MVC, responses of limited {@code Mono} and {@code Flux} endpoints carry the RateLimit
 * header fields (unless limiter.headers.enabled=false), and a web filter applies
 * {@code limiter.rules} (ordered by limiter.rule-filter-order, after Spring Security's filter).
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(DispatcherHandler.class)
@ConditionalOnBooleanProperty(name = "limiter.enabled", matchIfMissing = true)
public final class LimiterWebFluxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitExceededHandler rateLimitExceededHandler(ObjectProvider<RateLimiterRegistry> registry, LimiterProperties properties) {
        return new RateLimitExceededHandler(properties.getHeaders().isEnabled() ? registry.getIfAvailable() : null);
    }

    /**
     * The filter applying limiter.rules, registered even without rules (it then passes every
     * exchange on at once), so that rules need not be known when an application is processed ahead
     * of time. WebFlux's exception handling answers its rejections.
     */
    @Bean
    @ConditionalOnMissingBean
    RateLimitRuleWebFilter rateLimitRuleWebFilter(LimiterProperties properties, RateLimiterRegistry registry, RateLimitedMethods methods,
            ObjectProvider<HandlerAdapter> handlerAdapters, ObjectProvider<HandlerResultHandler> resultHandlers) {
        RateLimitRules rules = new RateLimitRules(ConfiguredRules.rules(properties), registry, methods);
        RateLimitRuleWebFilter filter = new RateLimitRuleWebFilter(rules, handlerAdapters, resultHandlers);
        filter.setOrder(properties.getRuleFilterOrder());
        return filter;
    }

    /**
     * Puts each exchange in the Reactor context, where a limited method's subscription finds the
     * response its RateLimit header fields go to.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "limiter.headers.enabled", matchIfMissing = true)
    ServerWebExchangeContextFilter serverWebExchangeContextFilter() {
        return new ServerWebExchangeContextFilter();
    }
}
