package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.Outcome;
import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Tests of shadow mode: decisions are made and permits taken, but rejected calls proceed: what Spring Boot's properties change (the interception itself is tested in limiter-spring). */
class ShadowPropertyTests {

    /** The logger of the Spring layer class that reports shadow rejections. */
    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean(RecordedOutcomes.class, RecordedOutcomes::new)
        .withUserConfiguration(ReportsConfiguration.class);

    @Test
    void configuredShadowOverridesTheAnnotation() {
        this.contextRunner.withPropertyValues("limiter.limiters.enforced.shadow=true").run((context) -> {
            ReportService reports = context.getBean(ReportService.class);
            for (int i = 0; i < 4; i++) {
                reports.enforced("alice");
            }
            assertThat(reports.calls()).isEqualTo(4);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes()).endsWith(Outcome.SHADOW_REJECTED);
        });
    }

    @Test
    void configuredShadowFalseEnforcesAnAnnotatedShadowLimiter() {
        this.contextRunner.withPropertyValues("limiter.limiters.shadowed.shadow=false").run((context) -> {
            ReportService reports = context.getBean(ReportService.class);
            reports.shadowed("alice");
            reports.shadowed("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> reports.shadowed("alice"));
            assertThat(context.getBean(RecordedOutcomes.class).outcomes()).endsWith(Outcome.REJECTED);
        });
    }

    /** Keeps every outcome, in order. */
    static class RecordedOutcomes implements DecisionListener {

        private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

        @Override
        public void onDecision(DecisionEvent event) {
            outcomes.add(event.outcome());
        }

        List<Outcome> outcomes() {
            return outcomes;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ReportsConfiguration {

        @Bean
        ReportService reportService() {
            return new ReportService();
        }

    }

    static class ReportService {

        private final AtomicInteger calls = new AtomicInteger();

        int calls() {
            return calls.get();
        }

        @RateLimited(name = "shadowed", key = "#user", limit = 2, window = "1m", shadow = true)
        public String shadowed(String user) {
            calls.incrementAndGet();
            return "report for " + user;
        }

        @RateLimited(name = "enforced", key = "#user", limit = 2, window = "1m")
        public String enforced(String user) {
            calls.incrementAndGet();
            return "report for " + user;
        }

    }

}
