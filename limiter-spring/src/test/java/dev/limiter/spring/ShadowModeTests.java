package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.Outcome;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.test.VirtualClock;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Tests of shadow mode: decisions are made and permits taken, but rejected calls proceed, in a plain Spring application ({@link EnableRateLimiting}). */
class ShadowModeTests {

    /** The logger of the Spring layer class that reports shadow rejections. */
    private static final String SHADOW_LOGGER = "dev.limiter.spring.internal.DecisionOutcomes";

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner()
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean(RecordedOutcomes.class, RecordedOutcomes::new)
        .withUserConfiguration(ReportsConfiguration.class);

    @Test
    void annotatedShadowLimiterLetsRejectedCallsProceedButTakesPermits() {
        this.contextRunner.run((context) -> {
            ReportService reports = context.getBean(ReportService.class);
            for (int i = 0; i < 5; i++) {
                assertThat(reports.shadowed("alice")).isEqualTo("report for alice");
            }
            assertThat(reports.calls()).isEqualTo(5);
            assertThat(context.getBean(RecordedOutcomes.class).outcomes()).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED,
                    Outcome.SHADOW_REJECTED, Outcome.SHADOW_REJECTED, Outcome.SHADOW_REJECTED);
            // The permits were taken in the backend as usual.
            Decision decision = context.getBean(RateLimiterRegistry.class).get("shadowed").tryAcquire("alice");
            assertThat(decision.rejected()).isTrue();
        });
    }

    @Test
    void limitersWithoutShadowStillReject() {
        this.contextRunner.run((context) -> {
            ReportService reports = context.getBean(ReportService.class);
            reports.enforced("alice");
            reports.enforced("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> reports.enforced("alice"));
            assertThat(reports.calls()).isEqualTo(2);
        });
    }

    @Test
    void shadowRejectionIsLoggedAtDebugWithTheKey() {
        ListAppender<ILoggingEvent> events = capture(Level.DEBUG);
        try {
            this.contextRunner.run((context) -> {
                ReportService reports = context.getBean(ReportService.class);
                for (int i = 0; i < 3; i++) {
                    reports.shadowed("alice");
                }
            });
            assertThat(events.list).singleElement().satisfies((event) -> {
                assertThat(event.getLevel()).isEqualTo(Level.DEBUG);
                assertThat(event.getFormattedMessage()).contains("'shadowed'").contains("'alice'")
                    .contains("ReportService.shadowed(String)");
            });
        }
        finally {
            release(events);
        }
    }

    @Test
    void shadowRejectionLogsNothingAboveDebug() {
        ListAppender<ILoggingEvent> events = capture(Level.INFO);
        try {
            this.contextRunner.run((context) -> {
                ReportService reports = context.getBean(ReportService.class);
                for (int i = 0; i < 3; i++) {
                    reports.shadowed("alice");
                }
            });
            assertThat(events.list).isEmpty();
        }
        finally {
            release(events);
        }
    }

    private static ListAppender<ILoggingEvent> capture(Level level) {
        Logger logger = (Logger) LoggerFactory.getLogger(SHADOW_LOGGER);
        logger.setLevel(level);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        return appender;
    }

    private static void release(ListAppender<ILoggingEvent> appender) {
        Logger logger = (Logger) LoggerFactory.getLogger(SHADOW_LOGGER);
        logger.detachAppender(appender);
        logger.setLevel(null);
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
