package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;

import dev.limiter.CalendarWindow;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.actuate.LimitDescriptor;
import dev.limiter.autoconfigure.actuate.LimiterActuatorAutoConfiguration;
import dev.limiter.autoconfigure.actuate.LimiterDescriptor;
import dev.limiter.autoconfigure.actuate.LimitersEndpoint;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code window: 1mo, zone: Europe/Berlin, anchor-day: 15} configures a fixed window of billing months;
 * what cannot count calendar windows stops startup naming the property, the value and the fix.
 */
class CalendarWindowConfigurationTests {

    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, EndpointAutoConfiguration.class,
                LimiterActuatorAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory", "management.endpoints.web.exposure.include=limiters")
        .withBean(VirtualClock.class, () -> new VirtualClock(at("2026-03-14T23:00")));

    @Test
    void billingMonthFromYaml() {
        this.contextRunner.withPropertyValues("limiter.limiters.billing.algorithm=fixed-window", "limiter.limiters.billing.limit=1000",
                "limiter.limiters.billing.window=1mo", "limiter.limiters.billing.zone=Europe/Berlin", "limiter.limiters.billing.anchor-day=15")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                RateLimiter billing = context.getBean(RateLimiterRegistry.class).get("billing");
                assertThat(billing.config().limits()).containsExactly(LimitSpec.perCalendar(1000, CalendarWindow.months(BERLIN, 15)));
                Decision decision = billing.tryAcquire("customer-1", 1000);
                assertThat(decision.allowed()).isTrue();
                // Reset at midnight of the 15th, Berlin time: an hour away.
                assertThat(decision.resetAfter()).isEqualTo(Duration.ofHours(1));
                assertThat(billing.tryAcquire("customer-1").retryAfter()).isEqualTo(Duration.ofHours(1));
                context.getBean(VirtualClock.class).advance(Duration.ofHours(1));
                assertThat(billing.tryAcquire("customer-1").allowed()).isTrue();
                LimitDescriptor described = ((LimiterDescriptor) context.getBean(LimitersEndpoint.class).limiter("billing")).limits().get(0);
                assertThat(described).isEqualTo(new LimitDescriptor(1000, "1mo", null, "Europe/Berlin", 15));
            });
    }

    @Test
    void calendarDaysAndWeeks() {
        this.contextRunner.withPropertyValues("limiter.limiters.daily.algorithm=fixed-window", "limiter.limiters.daily.limit=10",
                "limiter.limiters.daily.window=1d", "limiter.limiters.daily.zone=America/New_York",
                "limiter.limiters.weekly.algorithm=fixed-window", "limiter.limiters.weekly.limit=50",
                "limiter.limiters.weekly.window=1w", "limiter.limiters.weekly.zone=UTC")
            .run((context) -> {
                RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
                assertThat(registry.get("daily").config().limits().get(0).calendar()).isEqualTo(CalendarWindow.days(ZoneId.of("America/New_York")));
                assertThat(registry.get("weekly").config().limits().get(0).calendar()).isEqualTo(CalendarWindow.weeks(ZoneId.of("UTC")));
            });
    }

    @Test
    void aLimiterWithoutZoneKeepsEpochAlignedWindows() {
        this.contextRunner.withPropertyValues("limiter.limiters.plain.algorithm=fixed-window", "limiter.limiters.plain.limit=10",
                "limiter.limiters.plain.window=1d")
            .run((context) -> assertThat(context.getBean(RateLimiterRegistry.class).get("plain").config().limits().get(0).calendar()).isNull());
    }

    @Test
    void anchorDayOutsideTheMonth() {
        failure(new String[] { "algorithm=fixed-window", "limit=5", "window=1mo", "zone=UTC", "anchor-day=32" }, "limiter.limiters.q.anchor-day",
                "32", "between 1 and 31");
    }

    @Test
    void anchorDayWithoutMonth() {
        failure(new String[] { "algorithm=fixed-window", "limit=5", "window=1d", "zone=UTC", "anchor-day=15" }, "limiter.limiters.q.anchor-day",
                "15", "window=1mo");
    }

    @Test
    void monthWithoutZone() {
        failure(new String[] { "algorithm=fixed-window", "limit=5", "window=1mo" }, "limiter.limiters.q.window", "1mo", "limiter.limiters.q.zone");
    }

    @Test
    void calendarWindowOnAnotherAlgorithm() {
        failure(new String[] { "algorithm=token-bucket", "limit=5", "window=1d", "zone=UTC" }, "limiter.limiters.q.zone", "UTC",
                "algorithm=fixed-window");
    }

    @Test
    void zoneWithAWindowThatIsNoCalendarUnit() {
        failure(new String[] { "algorithm=fixed-window", "limit=5", "window=1h", "zone=UTC" }, "limiter.limiters.q.window", "PT1H", "1d, 1w or 1mo");
    }

    @Test
    void monthInOneOfSeveralLimits() {
        failure(new String[] { "algorithm=fixed-window", "limits[0].limit=5", "limits[0].window=1mo" }, "limiter.limiters.q.limits[0].window",
                "1mo", "on the limiter");
    }

    @Test
    void unknownZoneOrSeveralMonthsFailToBind() {
        this.contextRunner.withPropertyValues("limiter.limiters.q.algorithm=fixed-window", "limiter.limiters.q.limit=5",
                "limiter.limiters.q.window=1mo", "limiter.limiters.q.zone=Europe/Atlantis")
            .run((context) -> {
                FailureAnalysis analysis = new LimiterBindFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("limiter.limiters.q.zone", "Europe/Atlantis", "Not a time zone");
                assertThat(analysis.getAction()).contains("Europe/Berlin");
            });
        this.contextRunner.withPropertyValues("limiter.limiters.q.algorithm=fixed-window", "limiter.limiters.q.limit=5",
                "limiter.limiters.q.window=2mo", "limiter.limiters.q.zone=UTC")
            .run((context) -> {
                FailureAnalysis analysis = new LimiterBindFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("limiter.limiters.q.window", "2mo", "Not a window");
                assertThat(analysis.getAction()).contains("1d, 1w or 1mo");
            });
    }

    private void failure(String[] properties, String where, String value, String action) {
        String[] prefixed = new String[properties.length];
        for (int i = 0; i < properties.length; i++) {
            prefixed[i] = "limiter.limiters.q." + properties[i];
        }
        this.contextRunner.withPropertyValues(prefixed).run(LimiterConfigurationFailureTests.failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo(where);
            assertThat(analysis.getDescription()).contains(where).contains(value);
            assertThat(analysis.getAction()).contains(action);
        }));
    }

    static long at(String local) {
        var instant = LocalDateTime.parse(local).atZone(BERLIN).toInstant();
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }
}
