package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterConfigurationFailureTests.failsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/** Tests of several limits per limiter, sub-windows and max-wait, from properties and from the annotation. */
class SeveralLimitsTests {

    private static final LimitSpec TWO_PER_SECOND = LimitSpec.of(2, Duration.ofSeconds(1));

    private static final LimitSpec FIVE_PER_MINUTE = LimitSpec.of(5, Duration.ofMinutes(1));

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withBean(VirtualClock.class, VirtualClock::new);

    @Test
    void configuredLimitsAreCheckedTogether() {
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.algorithm=fixed-window", "limiter.limiters.search.limits[0].limit=5",
                    "limiter.limiters.search.limits[0].window=1m", "limiter.limiters.search.limits[1].limit=2",
                    "limiter.limiters.search.limits[1].window=1s")
            .run((context) -> {
                RateLimiter search = context.getBean(RateLimiterRegistry.class).get("search");
                assertThat(search.limits()).as("sorted by window").containsExactly(TWO_PER_SECOND, FIVE_PER_MINUTE);
                assertSecondThenMinuteLimit(context.getBean(SearchService.class), context.getBean(VirtualClock.class));
            });
    }

    @Test
    void annotatedLimitsAreCheckedTogether() {
        this.contextRunner.withUserConfiguration(AnnotatedConfiguration.class).run((context) -> {
            RateLimiter search = context.getBean(RateLimiterRegistry.class).get("search");
            assertThat(search.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
            assertThat(search.limits()).containsExactly(TWO_PER_SECOND, FIVE_PER_MINUTE);
            assertSecondThenMinuteLimit(context.getBean(SearchService.class), context.getBean(VirtualClock.class));
        });
    }

    /** 2 per second and 5 per minute: the second's limit rejects first, then the minute's. */
    private static void assertSecondThenMinuteLimit(SearchService search, VirtualClock clock) {
        // Start of a minute, so that both fixed windows are fresh and 2 + 2 + 1 calls fit in it.
        clock.advance(Duration.ofNanos(60_000_000_000L - (clock.nowMicros() % 60_000_000L) * 1_000L));
        search.find("a");
        search.find("b");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> search.find("c"))
            .satisfies((ex) -> assertThat(ex.getDecision().violatedLimit()).isEqualTo(TWO_PER_SECOND));
        clock.advance(Duration.ofSeconds(1));
        search.find("c");
        search.find("d");
        clock.advance(Duration.ofSeconds(1));
        search.find("e");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> search.find("f")).satisfies((ex) -> {
            Decision decision = ex.getDecision();
            assertThat(decision.violatedLimit()).isEqualTo(FIVE_PER_MINUTE);
            assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(58));
        });
        assertThat(search.calls()).isEqualTo(5);
    }

    @Test
    void configuredLimitsReplaceTheAnnotations() {
        this.contextRunner.withUserConfiguration(AnnotatedConfiguration.class)
            .withPropertyValues("limiter.limiters.search.limits[0].limit=3", "limiter.limiters.search.limits[0].window=10s")
            .run((context) -> assertThat(context.getBean(RateLimiterRegistry.class).get("search").limits())
                .containsExactly(LimitSpec.of(3, Duration.ofSeconds(10))));
    }

    @Test
    void aShorterWindowWithALargerLimitFailsStartupNamingTheLimiterAndLimits() {
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.limits[0].limit=100", "limiter.limiters.search.limits[0].window=1s",
                    "limiter.limiters.search.limits[1].limit=10", "limiter.limiters.search.limits[1].window=1h")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.search.limits");
                assertThat(ex.getProblem()).contains("'search'").contains("100/PT1S").contains("10/PT1H");
            }));
    }

    @Test
    void duplicateWindowsFailStartup() {
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.limits[0].limit=1", "limiter.limiters.search.limits[0].window=1s",
                    "limiter.limiters.search.limits[1].limit=2", "limiter.limiters.search.limits[1].window=1000ms")
            .run(failsWith((ex, analysis) -> assertThat(ex.getProblem()).contains("same window")));
    }

    @Test
    void limitsAndASingleLimitTogetherFailStartup() {
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.limit=1", "limiter.limiters.search.window=1s",
                    "limiter.limiters.search.limits[0].limit=10", "limiter.limiters.search.limits[0].window=1m")
            .run((context) -> {
                // Boot's own exception: its failure analysis lists each property and where it is set.
                assertThat(context).hasFailed();
                Throwable root = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
                assertThat(root).isInstanceOf(MutuallyExclusiveConfigurationPropertiesException.class);
                MutuallyExclusiveConfigurationPropertiesException ex = (MutuallyExclusiveConfigurationPropertiesException) root;
                assertThat(ex.getConfiguredNames()).containsExactly("limiter.limiters.search.limits", "limiter.limiters.search.limit",
                        "limiter.limiters.search.window");
                assertThat(ex.getMutuallyExclusiveNames()).contains("limiter.limiters.search.limits", "limiter.limiters.search.burst");
            });
    }

    @Test
    void aLimitWithoutWindowFailsStartupNamingItsIndex() {
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.limits[0].limit=10", "limiter.limiters.search.limits[0].window=1m",
                    "limiter.limiters.search.limits[1].limit=100")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.search.limits[1]")));
    }

    @Test
    void annotatedLimitThatDoesNotParseFailsStartup() {
        this.contextRunner.withUserConfiguration(BadAnnotatedLimitConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(limits) on BadLimitService.call()");
                assertThat(ex.getValue()).isEqualTo("\"ten/1s\"");
                assertThat(analysis.getAction()).contains("\"10/1s\"");
            }));
    }

    @Test
    void subWindowsAreConfigurableAndMustDivideTheWindow() {
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.algorithm=sliding-window", "limiter.limiters.search.limit=10",
                    "limiter.limiters.search.window=1m", "limiter.limiters.search.sub-windows=6")
            .run((context) -> assertThat(context.getBean(RateLimiterRegistry.class).get("search").config().subWindows()).isEqualTo(6));
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.algorithm=sliding-window", "limiter.limiters.search.limit=10",
                    "limiter.limiters.search.window=10s", "limiter.limiters.search.sub-windows=7")
            .run(failsWith((ex, analysis) -> assertThat(ex.getProblem()).contains("7 sub-windows")));
    }

    @Test
    void maxWaitOnAWindowAlgorithmFailsStartup() {
        this.contextRunner.withUserConfiguration(PlainConfiguration.class)
            .withPropertyValues("limiter.limiters.search.algorithm=fixed-window", "limiter.limiters.search.limit=10",
                    "limiter.limiters.search.window=1m", "limiter.limiters.search.max-wait=1s")
            .run(failsWith((ex, analysis) -> assertThat(ex.getProblem()).contains("max-wait")));
    }

    @Test
    void withMaxWaitACallWaitsItsTurnInsteadOfFailing() {
        // 20 per second, burst 1: a permit every 50 ms; a caller may wait up to 60 ms for one.
        this.contextRunner.withUserConfiguration(WaitingConfiguration.class).run((context) -> {
            RateLimiter paced = context.getBean(RateLimiterRegistry.class).get("paced");
            assertThat(paced.config().maxWait()).isEqualTo(Duration.ofMillis(60));
            PacedService service = context.getBean(PacedService.class);
            service.call();
            long start = System.nanoTime();
            service.call();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("waited for the reserved permit")
                .isGreaterThanOrEqualTo(Duration.ofMillis(50));
            // The clock stands still: the next permit is 100 ms away, beyond max-wait.
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(service::call)
                .satisfies((ex) -> assertThat(ex.getDecision().retryAfter()).isEqualTo(Duration.ofMillis(100)));
            assertThat(service.calls()).isEqualTo(2);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class PlainConfiguration {

        @Bean
        SearchService searchService() {
            return new SearchService();
        }

    }

    static class SearchService {

        private final AtomicInteger calls = new AtomicInteger();

        @RateLimited(name = "search")
        public String find(String text) {
            this.calls.incrementAndGet();
            return text;
        }

        int calls() {
            return this.calls.get();
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class AnnotatedConfiguration {

        @Bean
        AnnotatedSearchService annotatedSearchService() {
            return new AnnotatedSearchService();
        }

    }

    static class AnnotatedSearchService extends SearchService {

        @Override
        @RateLimited(name = "search", algorithm = Algorithm.FIXED_WINDOW, limits = { "5/1m", "2/1s" })
        public String find(String text) {
            return super.find(text);
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BadAnnotatedLimitConfiguration {

        @Bean
        BadLimitService badLimitService() {
            return new BadLimitService();
        }

    }

    static class BadLimitService {

        @RateLimited(name = "bad", limits = { "ten/1s" })
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class WaitingConfiguration {

        @Bean
        PacedService pacedService() {
            return new PacedService();
        }

    }

    static class PacedService {

        private final AtomicInteger calls = new AtomicInteger();

        @RateLimited(name = "paced", limit = 20, window = "1s", burst = 1, maxWait = "60ms")
        public void call() {
            this.calls.incrementAndGet();
        }

        int calls() {
            return this.calls.get();
        }

    }

}
