package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.Algorithm;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/**
 * Tests that a limiter configuration which cannot work stops startup with a
 * {@link LimiterConfigurationException} whose failure analysis names the property or attribute, the
 * value and the fix.
 */
class LimiterConfigurationFailureTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class));

    @Test
    void zeroLimitInProperties() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=0", "limiter.limiters.orders.window=1s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.limit");
                assertThat(ex.getValue()).isEqualTo("0");
                assertThat(analysis.getDescription()).contains("limiter.limiters.orders.limit").contains("value: 0");
                assertThat(analysis.getAction()).contains("at least 1");
            }));
    }

    @Test
    void zeroWindowInProperties() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=0s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.window");
                assertThat(analysis.getDescription()).contains("limiter.limiters.orders.window").contains("PT0S")
                    .contains("positive");
                assertThat(analysis.getAction()).contains("window such as");
            }));
    }

    @Test
    void negativeWindowInProperties() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=-10s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.window");
                assertThat(analysis.getDescription()).contains("PT-10S");
            }));
    }

    @Test
    void zeroBurstInProperties() {
        this.contextRunner
            .withPropertyValues("limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=1s",
                    "limiter.limiters.orders.burst=0")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.burst");
                assertThat(analysis.getDescription()).contains("limiter.limiters.orders.burst").contains("value: 0");
                assertThat(analysis.getAction()).isNotBlank();
            }));
    }

    @Test
    void burstOnFixedWindow() {
        this.contextRunner
            .withPropertyValues("limiter.limiters.orders.algorithm=fixed-window", "limiter.limiters.orders.limit=5",
                    "limiter.limiters.orders.window=1s", "limiter.limiters.orders.burst=10")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.burst");
                assertThat(analysis.getDescription()).contains("value: 10").contains("fixed-window");
                assertThat(analysis.getAction()).contains("Remove the burst");
            }));
    }

    @Test
    void limitWithoutWindowAndNoAnnotation() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=5")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.window");
                assertThat(analysis.getDescription()).contains("(not set)").contains("has no window");
                assertThat(analysis.getAction()).contains("limiter.limiters.orders.window");
            }));
    }

    @Test
    void invalidLimiterNameInAnnotation() {
        this.contextRunner.withUserConfiguration(InvalidNameConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getValue()).isEqualTo("a b");
                assertThat(analysis.getDescription()).contains("InvalidNameService.call()").contains("a b")
                    .contains("letters, digits");
                assertThat(analysis.getAction()).contains("Rename");
            }));
    }

    @Test
    void unparsableWindowInAnnotation() {
        this.contextRunner.withUserConfiguration(BadWindowConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(window) on BadWindowService.call()");
                assertThat(analysis.getDescription()).contains("\"ten seconds\"").contains("Not a duration");
                assertThat(analysis.getAction()).contains("\"10s\"");
            }));
    }

    @Test
    void negativeLimitInAnnotation() {
        this.contextRunner.withUserConfiguration(NegativeLimitConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(limit) on NegativeLimitService.call()");
                assertThat(ex.getValue()).isEqualTo("-1");
            }));
    }

    @Test
    void negativeLimitInAnnotationIsReportedWhilePropertiesReplaceIt() {
        this.contextRunner.withUserConfiguration(NegativeLimitConfiguration.class).withPropertyValues("limiter.limiters.orders.limit=5")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(limit) on NegativeLimitService.call()");
                assertThat(ex.getValue()).isEqualTo("-1");
                assertThat(analysis.getDescription()).contains("limiter.limiters.orders.limit replaces it while set");
                assertThat(analysis.getAction()).contains("at least 1").contains("remove the attribute");
            }));
    }

    @Test
    void unparsableWindowInAnnotationIsReportedWhilePropertiesReplaceIt() {
        this.contextRunner.withUserConfiguration(BadWindowConfiguration.class)
            .withPropertyValues("limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=10s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(window) on BadWindowService.call()");
                assertThat(analysis.getDescription()).contains("\"ten seconds\"").contains("limiter.limiters.orders.window replaces it");
                assertThat(analysis.getAction()).contains("\"10s\"");
            }));
    }

    @Test
    void annotationWithBothLimitsAndLimitIsReportedWhilePropertiesSetTheLimits() {
        this.contextRunner.withUserConfiguration(LimitsAndLimitConfiguration.class)
            .withPropertyValues("limiter.limiters.orders.limits[0].limit=5", "limiter.limiters.orders.limits[0].window=1s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(limits) on LimitsAndLimitService.call()");
                assertThat(analysis.getDescription()).contains("both limits and limit/window").contains("limiter.limiters.orders.limits");
            }));
    }

    @Test
    void burstOnFixedWindowInAnnotationIsReportedWhilePropertiesChooseABucket() {
        this.contextRunner.withUserConfiguration(FixedWindowBurstConfiguration.class)
            .withPropertyValues("limiter.limiters.orders.algorithm=token-bucket")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("@RateLimited(burst) on FixedWindowBurstService.call()")));
    }

    /** An attribute at its default is not set (an annotation cannot hold null), so configuration supplies it without complaint. */
    @Test
    void zeroLimitInAnnotationIsNotSetAndPropertiesSupplyIt() {
        this.contextRunner.withUserConfiguration(NoLimitConfiguration.class).withPropertyValues("limiter.limiters.unset.limit=5")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void burstOnFixedWindowInAnnotation() {
        this.contextRunner.withUserConfiguration(FixedWindowBurstConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(burst) on FixedWindowBurstService.call()");
                assertThat(analysis.getAction()).contains("token-bucket");
            }));
    }

    @Test
    void zeroMaxKeysInMemory() {
        this.contextRunner.withPropertyValues("limiter.memory.max-keys=0")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.memory.max-keys")));
    }

    @Test
    void annotationWithoutName() {
        this.contextRunner.withUserConfiguration(NamelessConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(name) on NamelessService.call()");
                assertThat(analysis.getDescription()).contains("needs a limiter name");
                assertThat(analysis.getAction()).contains("@RateLimited(name = ");
            }));
    }

    @Test
    void annotationWithoutLimitNorConfiguration() {
        this.contextRunner.withUserConfiguration(NoLimitConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.unset.limit");
                assertThat(analysis.getDescription()).contains("NoLimitService.call()").contains("has no limit");
                assertThat(analysis.getAction()).contains("limiter.limiters.unset.limit").contains("annotation");
            }));
    }

    @Test
    void zeroLimitFromPropertiesOverAnnotation() {
        this.contextRunner.withUserConfiguration(NoLimitConfiguration.class)
            .withPropertyValues("limiter.limiters.unset.limit=0", "limiter.limiters.unset.window=1s")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.unset.limit")));
    }

    @Test
    void sameNameWithDifferentValuesNamesBothMethods() {
        this.contextRunner.withUserConfiguration(ConflictConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(analysis.getDescription()).contains("ConflictService.first()").contains("ConflictService.second()")
                    .contains("already defined");
                assertThat(analysis.getAction()).contains("limiter.limiters.shared");
            }));
    }

    @Test
    void sameNameWithDifferentValuesInTwoBeansNamesBothMethods() {
        this.contextRunner.withUserConfiguration(SharedConfiguration.class, OtherConflictConfiguration.class)
            .run(failsWith((ex, analysis) -> assertThat(analysis.getDescription()).contains("SharedService.only()")
                .contains("OtherConflictService.third()")));
    }

    @Test
    void spelSyntaxErrorInKey() {
        this.contextRunner.withUserConfiguration(BadKeyConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(key) on BadKeyService.call(User)");
                assertThat(analysis.getDescription()).contains("\"#user.id +\"").contains("Not a valid SpEL expression");
                assertThat(analysis.getAction()).contains("#user.id");
            }));
    }

    @Test
    void unknownParameterInKeyNamesTheMethodAndListsTheParameters() {
        this.contextRunner.withUserConfiguration(UnknownParameterConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(key) on UnknownParameterService.call(User, int)");
                assertThat(analysis.getDescription()).contains("\"#usr.id\"").contains("#usr,");
                assertThat(analysis.getAction()).contains("#user").contains("#count").contains("#p0");
            }));
    }

    @Test
    void unknownParameterInCost() {
        this.contextRunner.withUserConfiguration(UnknownCostParameterConfiguration.class)
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(cost) on UnknownCostParameterService.call(int)");
                assertThat(analysis.getAction()).contains("#rows");
            }));
    }

    /**
     * Asserts that startup failed with a {@link LimiterConfigurationException} as the root cause, and
     * hands it and its failure analysis to {@code assertions}.
     */
    static ContextConsumer<AssertableApplicationContext> failsWith(FailureAssertions assertions) {
        return (context) -> {
            assertThat(context).hasFailed();
            // Thrown while creating a bean it is the root cause; from the check after all beans, the failure itself.
            Throwable cause = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
            assertThat(cause).isInstanceOf(LimiterConfigurationException.class);
            LimiterConfigurationException ex = (LimiterConfigurationException) cause;
            FailureAnalysis analysis = new LimiterConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains(ex.getWhere()).contains(ex.getValue());
            assertThat(analysis.getAction()).isNotBlank();
            assertions.accept(ex, analysis);
        };
    }

    @FunctionalInterface
    interface FailureAssertions {

        void accept(LimiterConfigurationException ex, FailureAnalysis analysis);

    }

    record User(String id) {
    }

    @Configuration(proxyBeanMethods = false)
    static class InvalidNameConfiguration {

        @Bean
        InvalidNameService invalidNameService() {
            return new InvalidNameService();
        }

    }

    static class InvalidNameService {

        @RateLimited(name = "a b", limit = 1, window = "1s")
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BadWindowConfiguration {

        @Bean
        BadWindowService badWindowService() {
            return new BadWindowService();
        }

    }

    static class BadWindowService {

        @RateLimited(name = "orders", limit = 1, window = "ten seconds")
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class NegativeLimitConfiguration {

        @Bean
        NegativeLimitService negativeLimitService() {
            return new NegativeLimitService();
        }

    }

    static class NegativeLimitService {

        @RateLimited(name = "orders", limit = -1, window = "1s")
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class FixedWindowBurstConfiguration {

        @Bean
        FixedWindowBurstService fixedWindowBurstService() {
            return new FixedWindowBurstService();
        }

    }

    static class FixedWindowBurstService {

        @RateLimited(name = "orders", algorithm = Algorithm.FIXED_WINDOW, limit = 5, window = "1s", burst = 10)
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class LimitsAndLimitConfiguration {

        @Bean
        LimitsAndLimitService limitsAndLimitService() {
            return new LimitsAndLimitService();
        }

    }

    static class LimitsAndLimitService {

        @RateLimited(name = "orders", limits = { "10/1s" }, limit = 5)
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class NamelessConfiguration {

        @Bean
        NamelessService namelessService() {
            return new NamelessService();
        }

    }

    static class NamelessService {

        @RateLimited(limit = 1, window = "1s")
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class NoLimitConfiguration {

        @Bean
        NoLimitService noLimitService() {
            return new NoLimitService();
        }

    }

    static class NoLimitService {

        @RateLimited(name = "unset", window = "1s")
        public void call() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ConflictConfiguration {

        @Bean
        ConflictService conflictService() {
            return new ConflictService();
        }

    }

    static class ConflictService {

        @RateLimited(name = "shared", limit = 1, window = "1s")
        public void first() {
        }

        @RateLimited(name = "shared", limit = 2, window = "1s")
        public void second() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class SharedConfiguration {

        @Bean
        SharedService sharedService() {
            return new SharedService();
        }

    }

    static class SharedService {

        @RateLimited(name = "shared", limit = 1, window = "1s")
        public void only() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class OtherConflictConfiguration {

        @Bean
        OtherConflictService otherConflictService() {
            return new OtherConflictService();
        }

    }

    static class OtherConflictService {

        @RateLimited(name = "shared", algorithm = Algorithm.FIXED_WINDOW, limit = 1, window = "1s")
        public void third() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class BadKeyConfiguration {

        @Bean
        BadKeyService badKeyService() {
            return new BadKeyService();
        }

    }

    static class BadKeyService {

        @RateLimited(name = "orders", key = "#user.id +", limit = 1, window = "1s")
        public void call(User user) {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownParameterConfiguration {

        @Bean
        UnknownParameterService unknownParameterService() {
            return new UnknownParameterService();
        }

    }

    static class UnknownParameterService {

        @RateLimited(name = "orders", key = "#usr.id", limit = 1, window = "1s")
        public void call(User user, int count) {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownCostParameterConfiguration {

        @Bean
        UnknownCostParameterService unknownCostParameterService() {
            return new UnknownCostParameterService();
        }

    }

    static class UnknownCostParameterService {

        @RateLimited(name = "export", limit = 10, window = "1s", cost = "#row")
        public void call(int rows) {
        }

    }

}
