package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.spring.web.RateLimitExceededHandler;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.DispatcherServlet;

/** Tests of when {@link LimiterWebMvcAutoConfiguration} contributes the 429 handler. */
class LimiterWebMvcAutoConfigurationTests {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class));

    @Test
    void servletWebApplicationGetsTheHandler() {
        this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RateLimitExceededHandler.class));
    }

    @Test
    void userDefinedHandlerWins() {
        RateLimitExceededHandler handler = new RateLimitExceededHandler();
        this.contextRunner.withBean(RateLimitExceededHandler.class, () -> handler).run((context) -> {
            assertThat(context).hasSingleBean(RateLimitExceededHandler.class);
            assertThat(context.getBean(RateLimitExceededHandler.class)).isSameAs(handler);
        });
    }

    @Test
    void noHandlerWithoutSpringMvc() {
        this.contextRunner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
            .run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceededHandler.class));
    }

    @Test
    void noHandlerWhenDisabled() {
        this.contextRunner.withPropertyValues("limiter.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceededHandler.class));
    }

    @Test
    void noHandlerOutsideAWebApplication() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(RateLimitExceededHandler.class);
            });
    }

}
