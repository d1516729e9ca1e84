package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.web.LimiterWebFluxAutoConfiguration;
import dev.limiter.gateway.internal.GatewayLimits;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/** When the gateway auto-configuration applies, and that it leaves the gateway's own RateLimiter in place. */
class LimiterGatewayAutoConfigurationTests {

    /** Limiter's auto-configuration, on the in-memory backend: no Redis needed to see which beans exist. */
    private final ReactiveWebApplicationContextRunner limiterOnly = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class,
                LimiterGatewayAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory");

    /** A whole reactive gateway application: Spring Cloud Gateway's auto-configuration, its Redis one included. */
    private final ReactiveWebApplicationContextRunner gatewayApp = new ReactiveWebApplicationContextRunner()
        .withUserConfiguration(App.class)
        .withPropertyValues("limiter.backend=memory", "spring.data.redis.url=redis://127.0.0.1:1", "management.endpoints.web.exposure.include=");

    @Test
    void withTheReactiveGatewayTheLimiterBeanAndFilterExist() {
        limiterOnly.run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(GatewayLimits.class).hasSingleBean(LimiterGatewayFilterFactory.class);
            assertThat(context.getBean("limiter")).isInstanceOf(LimiterRateLimiter.class);
        });
    }

    @Test
    void backsOffWithoutTheGatewayOnTheClassPath() {
        limiterOnly.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway")).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(GatewayLimits.class)
                .doesNotHaveBean(LimiterGatewayFilterFactory.class)
                .doesNotHaveBean("limiter")
                .doesNotHaveBean(LimiterGatewayProperties.class);
        });
    }

    @Test
    void backsOffWhenLimiterIsDisabled() {
        limiterOnly.withPropertyValues("limiter.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(GatewayLimits.class).doesNotHaveBean(LimiterGatewayFilterFactory.class).doesNotHaveBean("limiter");
        });
    }

    @Test
    void routesNamingNoRateLimiterKeepTheGatewaysRedisRateLimiter() {
        gatewayApp.run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("limiter")).isInstanceOf(LimiterRateLimiter.class);
            assertThat(context).hasSingleBean(RedisRateLimiter.class);
            assertThat(context.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
                .isInstanceOf(RedisRateLimiter.class);
        });
    }

    @Test
    void withoutTheGatewaysRedisRateLimiterTheLimiterBeanIsStillNoRoutesDefault() {
        // No Redis template, so no RedisRateLimiter: RequestRateLimiter must not silently default to Limiter's bean.
        gatewayApp.withPropertyValues("spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(RedisRateLimiter.class);
                context.getBeanProvider(RequestRateLimiterGatewayFilterFactory.class)
                    .ifAvailable((factory) -> assertThat(factory.getDefaultRateLimiter()).isNotInstanceOf(LimiterRateLimiter.class));
            });
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        KeyResolver apiKeyResolver() {
            return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
        }
    }
}
