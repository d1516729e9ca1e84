package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.BiConsumer;

import dev.limiter.autoconfigure.web.LimiterWebFluxAutoConfiguration;
import dev.limiter.autoconfigure.web.LimiterWebMvcAutoConfiguration;
import dev.limiter.spring.LimiterConfigurationException;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.core.NestedExceptionUtils;

/**
 * A rule of limiter.rules that cannot work stops startup, in Spring MVC and WebFlux alike, with a
 * report naming the property, the value and the fix.
 */
class RateLimitRulesConfigurationTests {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues("limiter.limiters.api.limit=10", "limiter.limiters.api.window=1s", "limiter.limiters.login.limit=5",
                "limiter.limiters.login.window=1m", "limiter.rules[0].paths=/api/**", "limiter.rules[0].limiter=api");

    private final ReactiveWebApplicationContextRunner reactiveContextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues("limiter.limiters.api.limit=10", "limiter.limiters.api.window=1s", "limiter.rules[0].paths=/api/**",
                "limiter.rules[0].limiter=api");

    /** The control: each test below differs from this configuration by the one mistake it checks. */
    @Test
    void wellFormedRulesStart() {
        this.contextRunner.withPropertyValues("limiter.rules[0].methods=GET,post", "limiter.rules[0].key=#clientIp",
                "limiter.rules[0].when=#request.getHeader('X-Plan') != 'pro'", "limiter.rules[0].unless=#principal != null",
                "limiter.rules[0].cost=2 * 3", "limiter.rules[1].paths=/login,/api/{id}/*.json", "limiter.rules[1].limiter=login")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void unknownLimiter() {
        this.contextRunner.withPropertyValues("limiter.rules[0].limiter=apx").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].limiter");
            assertThat(ex.getValue()).isEqualTo("apx");
            assertThat(ex.getProblem()).contains("no limiter 'apx'");
            assertThat(ex.getAction()).contains("limiter.limiters.apx").contains("api, login");
            assertThat(analysis.getDescription()).contains("limiter.rules[0].limiter").contains("value: apx");
        }));
    }

    @Test
    void noLimiter() {
        this.contextRunner.withPropertyValues("limiter.rules[1].paths=/login").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[1].limiter");
            assertThat(ex.getAction()).contains("limiter.limiters");
        }));
    }

    @Test
    void badPathPattern() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/api/**,/api/{id").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].paths[1]");
            assertThat(ex.getValue()).isEqualTo("/api/{id");
            assertThat(ex.getProblem()).startsWith("Not a path pattern");
            assertThat(ex.getAction()).contains("PathPattern");
        }));
    }

    @Test
    void doubleWildcardInTheMiddleOfAPath() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/api/**/orders")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].paths[0]")));
    }

    @Test
    void noPaths() {
        this.contextRunner.withPropertyValues("limiter.rules[1].limiter=login").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[1].paths");
            assertThat(ex.getProblem()).contains("at least one path");
        }));
    }

    @Test
    void unknownHttpMethod() {
        this.contextRunner.withPropertyValues("limiter.rules[0].methods=GET,FETCH").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].methods[1]");
            assertThat(ex.getValue()).isEqualTo("FETCH");
            assertThat(ex.getAction()).contains("GET, HEAD, POST");
        }));
    }

    @Test
    void keyThatIsNoExpression() {
        this.contextRunner.withPropertyValues("limiter.rules[0].key=#clientIp +").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].key");
            assertThat(ex.getValue()).isEqualTo("#clientIp +");
            assertThat(ex.getProblem()).startsWith("Not a valid SpEL expression");
        }));
    }

    @Test
    void keyNamingAnUnknownVariable() {
        this.contextRunner.withPropertyValues("limiter.rules[0].key=#user.id").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].key");
            assertThat(ex.getProblem()).contains("#user");
            assertThat(ex.getAction()).contains("#request, #principal or #clientIp");
        }));
    }

    @Test
    void badWhen() {
        this.contextRunner.withPropertyValues("limiter.rules[0].when=#request.getHeader('X') ==")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].when")));
    }

    @Test
    void badUnless() {
        this.contextRunner.withPropertyValues("limiter.rules[0].unless=#tenant == 'internal'")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].unless")));
    }

    @Test
    void costOfZero() {
        this.contextRunner.withPropertyValues("limiter.rules[0].cost=0").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].cost");
            assertThat(ex.getValue()).isEqualTo("0");
            assertThat(ex.getProblem()).contains("at least 1");
        }));
    }

    @Test
    void costThatIsNoWholeNumber() {
        this.contextRunner.withPropertyValues("limiter.rules[0].cost=1.5")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].cost")));
    }

    @Test
    void costThatIsNoExpression() {
        this.contextRunner.withPropertyValues("limiter.rules[0].cost=#request.getHeader('X-Cost'")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].cost")));
    }

    @Test
    void webFluxChecksRulesToo() {
        this.reactiveContextRunner.withPropertyValues("limiter.rules[0].methods=GIT").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].methods[0]");
            assertThat(ex.getValue()).isEqualTo("GIT");
        }));
        this.reactiveContextRunner.withPropertyValues("limiter.rules[0].limiter=nope")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.rules[0].limiter")));
    }

    private static <C extends ApplicationContextAssertProvider<?>> ContextConsumer<C> failsWith(
            BiConsumer<LimiterConfigurationException, FailureAnalysis> check) {
        return (context) -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            Throwable root = NestedExceptionUtils.getMostSpecificCause(failure);
            assertThat(root).isInstanceOf(LimiterConfigurationException.class);
            FailureAnalysis analysis = new LimiterConfigurationFailureAnalyzer().analyze(failure);
            assertThat(analysis).as("a failure analysis").isNotNull();
            assertThat(analysis.getDescription()).contains(((LimiterConfigurationException) root).getWhere());
            check.accept((LimiterConfigurationException) root, analysis);
        };
    }
}
