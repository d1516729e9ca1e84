package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.spring.web.RateLimitExceededHandler;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.reactive.DispatcherHandler;

/** Tests of when {@link LimiterWebFluxAutoConfiguration} contributes the 429 handler and the exchange filter. */
class LimiterWebFluxAutoConfigurationTests {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class));

    @Test
    void reactiveWebApplicationGetsTheHandlerAndTheExchangeInTheReactorContext() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasSingleBean(RateLimitExceededHandler.class);
            assertThat(context).hasSingleBean(ServerWebExchangeContextFilter.class);
        });
    }

    @Test
    void userDefinedHandlerAndFilterWin() {
        RateLimitExceededHandler handler = new RateLimitExceededHandler();
        ServerWebExchangeContextFilter filter = new ServerWebExchangeContextFilter();
        this.contextRunner.withBean(RateLimitExceededHandler.class, () -> handler)
            .withBean(ServerWebExchangeContextFilter.class, () -> filter)
            .run((context) -> {
                assertThat(context.getBean(RateLimitExceededHandler.class)).isSameAs(handler);
                assertThat(context.getBean(ServerWebExchangeContextFilter.class)).isSameAs(filter);
            });
    }

    @Test
    void noFilterWhenHeaderFieldsAreOff() {
        this.contextRunner.withPropertyValues("limiter.headers.enabled=false").run((context) -> {
            assertThat(context).hasSingleBean(RateLimitExceededHandler.class);
            assertThat(context).doesNotHaveBean(ServerWebExchangeContextFilter.class);
        });
    }

    @Test
    void nothingWithoutSpringWebFlux() {
        this.contextRunner.withClassLoader(new FilteredClassLoader(DispatcherHandler.class))
            .run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceededHandler.class));
    }

    @Test
    void nothingWhenDisabled() {
        this.contextRunner.withPropertyValues("limiter.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceededHandler.class));
    }

    @Test
    void nothingInAServletApplication() {
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(RateLimitExceededHandler.class);
                assertThat(context).doesNotHaveBean(ServerWebExchangeContextFilter.class);
            });
    }

}
