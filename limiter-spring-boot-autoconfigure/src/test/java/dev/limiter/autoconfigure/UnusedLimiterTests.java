package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterConfigurationFailureTests.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.RateLimited;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A limiter under {@code limiter.limiters} that no annotation or rule uses is reported at startup, with
 * the used name closest to it: a warning when one is close enough to be what was meant, else a line
 * of information, since code may get the limiter from the registry.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnusedLimiterTests {

    private static final String LOGGER = ConfiguredLimiters.class.getName();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory")
        .withUserConfiguration(OrdersConfiguration.class);

    private final LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());

    @BeforeEach
    void logInformation() {
        this.logging.setLogLevel(LOGGER, LogLevel.INFO);
    }

    @AfterEach
    void restoreLogging() {
        this.logging.setLogLevel(LOGGER, null);
    }

    @Test
    void aMisspeltNameIsAWarningNamingTheClosestUsedOne(CapturedOutput output) {
        this.contextRunner.withPropertyValues("limiter.limiters.ordrs.limit=5", "limiter.limiters.ordrs.window=1s").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RateLimiterRegistry.class).find("ordrs")).as("code may still use it").isPresent();
        });
        assertThat(output).contains("WARN").contains("limiter.limiters.ordrs configures a limiter that no @RateLimited method, "
                + "limiter.rules entry or route uses; did you mean 'orders' (used by @RateLimited on OrdersService.place())? Rename "
                + "limiter.limiters.ordrs to limiter.limiters.orders if so; ignore this if code gets 'ordrs' from the RateLimiterRegistry");
    }

    @Test
    void aNameCloseToNoUsedOneIsInformationOnly(CapturedOutput output) {
        this.contextRunner.withPropertyValues("limiter.limiters.reports.limit=5", "limiter.limiters.reports.window=1s")
            .run((context) -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("WARN")
            .contains("INFO")
            .contains("limiter.limiters.reports configures a limiter that no @RateLimited method, limiter.rules entry or route uses: only "
                    + "code that gets it from the RateLimiterRegistry uses it (the limiters used are [orders])");
    }

    /** Limiters that other modules use by name (gateway routes, outgoing calls) are used, and named as used where they are. */
    @Test
    void aLimiterThatARouteUsesIsNotReportedAndIsNamedAsTheClosest(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("limiter.limiters.catalog.limit=5", "limiter.limiters.catalog.window=1s", "limiter.limiters.catalg.limit=5",
                    "limiter.limiters.catalg.window=1s")
            .withBean(LimiterSites.class, () -> () -> Map.of("catalog", List.of("spring.cloud.gateway.server.webflux.routes[2] (route catalog)")))
            .run((context) -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("limiter.limiters.catalog configures")
            .contains("limiter.limiters.catalg configures a limiter that no @RateLimited method, limiter.rules entry or route uses; "
                    + "did you mean 'catalog' (used by spring.cloud.gateway.server.webflux.routes[2] (route catalog))?");
    }

    @Test
    void aLimiterThatAnAnnotationOrARuleUsesIsNotReported(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("limiter.limiters.orders.limit=7", "limiter.limiters.pages.limit=5", "limiter.limiters.pages.window=1s",
                    "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages")
            .run((context) -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("configures a limiter");
    }

    @Test
    void aMisspeltNameThatCannotStandAloneFailsNamingTheClosestUsedOne() {
        this.contextRunner.withPropertyValues("limiter.limiters.ordres.limit=5").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.limiters.ordres.window");
            assertThat(analysis.getDescription()).contains("has no window")
                .contains("no @RateLimited method or limiter.rules entry uses limiter 'ordres': did you mean 'orders'?");
            assertThat(analysis.getAction()).startsWith("Rename limiter.limiters.ordres to limiter.limiters.orders if that is the "
                    + "limiter meant, else: Set limiter.limiters.ordres.window");
        }));
    }

    @Test
    void closeNamesDifferByAFewEditsIgnoringCaseAndSeparators() {
        Set<String> used = Set.of("orders", "search-api", "api");
        assertThat(Misspelling.closest("ordrs", used)).isEqualTo("orders");
        assertThat(Misspelling.closest("order", used)).isEqualTo("orders");
        assertThat(Misspelling.closest("SearchAPI", used)).isEqualTo("search-api");
        assertThat(Misspelling.closest("searhc_api", used)).isEqualTo("search-api");
        assertThat(Misspelling.closest("app", used)).isEqualTo("api");
        assertThat(Misspelling.closest("ab", used)).isNull();
        assertThat(Misspelling.closest("reports", used)).isNull();
        assertThat(Misspelling.closest("odrers", used)).as("two edits in six letters").isEqualTo("orders");
        assertThat(Misspelling.closest("oders", Set.of())).isNull();
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {

        @Bean
        OrdersService ordersService() {
            return new OrdersService();
        }

    }

    static class OrdersService {

        @RateLimited(name = "orders", limit = 5, window = "1s")
        public void place() {
        }

    }
}
