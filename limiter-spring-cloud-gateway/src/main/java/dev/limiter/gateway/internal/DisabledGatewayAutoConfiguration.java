package dev.limiter.gateway.internal;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * The reactive gateway with {@code limiter.enabled=false}: what its routes name of Limiter (the
 * {@code Limiter} filter, the bean {@code limiter}) exists and lets every request through, so that the
 * switch means "run unlimited" at the gateway as it does everywhere else. (The Server MVC gateway's
 * filter functions see the switch themselves.)
 */
@AutoConfiguration(afterName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnBooleanProperty(name = "limiter.enabled", havingValue = false)
@ConditionalOnClass(name = "org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
public final class DisabledGatewayAutoConfiguration {

    /** As Limiter's bean {@code limiter}, no default candidate: routes naming no rate limiter keep the gateway's own. */
    @Bean(name = "limiter", defaultCandidate = false)
    @ConditionalOnMissingBean(name = "limiter")
    UnlimitedRateLimiter limiter() {
        return new UnlimitedRateLimiter();
    }

    @Bean
    @ConditionalOnMissingBean
    UnlimitedGatewayFilterFactory limiterGatewayFilterFactory() {
        return new UnlimitedGatewayFilterFactory();
    }
}
