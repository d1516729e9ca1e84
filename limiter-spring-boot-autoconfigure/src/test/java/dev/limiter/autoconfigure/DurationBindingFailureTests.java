package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code limiter.*} duration that does not bind, such as {@code window: 10 seconds}, stops startup
 * with a report naming the property, the value, where it was set and the forms a duration takes.
 */
class DurationBindingFailureTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory");

    @Test
    void aWindowWithTheUnitInWordsNamesThePropertyTheValueAndTheForms() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=10 seconds")
            .run((context) -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = new LimiterBindFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis).isNotNull();
                assertThat(analysis.getDescription()).contains("limiter.limiters.orders.window", "value: \"10 seconds\"",
                        "problem: Not a window");
                assertThat(analysis.getAction()).contains("10s", "500ms", "1m", "PT10S", "a number alone means milliseconds");
            });
    }

    @Test
    void aDurationInAListOfLimitsOrOfTheRedisSettingsIsNamedToo() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limits[0].limit=5", "limiter.limiters.orders.limits[0].window=1 min")
            .run((context) -> assertThat(new LimiterBindFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                .contains("limiter.limiters.orders.limits[0].window", "\"1 min\""));
        this.contextRunner.withPropertyValues("limiter.redis.timeout=half a second")
            .run((context) -> assertThat(new LimiterBindFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                .contains("limiter.redis.timeout", "\"half a second\""));
    }

    @Test
    void otherBindingFailuresAreLeftToSpringBoot() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=five", "limiter.limiters.orders.window=1s")
            .run((context) -> {
                assertThat(context).getFailure().hasRootCauseInstanceOf(NumberFormatException.class);
                assertThat(new LimiterBindFailureAnalyzer().analyze(context.getStartupFailure())).isNull();
            });
        Binder binder = new Binder(new MapConfigurationPropertySource(Map.of("spring.data.redis.timeout", "10 seconds")));
        BindException notOurs = catchThrowableOfType(BindException.class, () -> binder.bind("spring.data.redis.timeout", Duration.class));
        assertThat(new LimiterBindFailureAnalyzer().analyze(notOurs)).isNull();
    }

    /**
     * In an application, the report is Limiter's rather than Spring Boot's (the analyzer is registered and
     * comes first), and says in which file and line the value is.
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void theApplicationReportsItWithTheFileAndTheForms(CapturedOutput output, @TempDir Path directory) throws IOException {
        Path yaml = Files.writeString(directory.resolve("application.yml"), """
                limiter:
                  backend: memory
                  limiters:
                    orders:
                      limit: 5
                      window: 10 seconds
                """);
        SpringApplication application = new SpringApplication(Application.class);
        application.setBannerMode(Banner.Mode.OFF);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatExceptionOfType(RuntimeException.class)
            .isThrownBy(() -> application.run("--spring.config.location=" + yaml.toUri()));
        assertThat(output).contains("Invalid rate limiter configuration:", "limiter.limiters.orders.window", "value: \"10 seconds\"",
                "origin: URL [file:" + yaml + "] - 6:15", "PT10S")
            .doesNotContain("Update your application's configuration");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(LimiterAutoConfiguration.class)
    static class Application {

    }
}
