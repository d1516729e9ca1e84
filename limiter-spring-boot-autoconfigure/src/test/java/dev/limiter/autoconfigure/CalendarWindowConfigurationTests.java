package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Map;

import dev.limiter.CalendarWindow;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.actuate.LimitDescriptor;
import dev.limiter.autoconfigure.actuate.LimiterActuatorAutoConfiguration;
import dev.limiter.autoconfigure.actuate.LimiterDescriptor;
import dev.limiter.autoconfigure.actuate.LimitersEndpoint;
import dev.limiter.autoconfigure.actuate.RetuneDescriptor;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
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

    /**
     * A retune of the limit keeps the zone and anchor day configured; a retune may change them, or remove the anchor
     * day, but a calendar limiter stays one.
     */
    @Test
    void retuningACalendarLimiterKeepsOrChangesItsZoneAndAnchorDay() {
        this.contextRunner.withPropertyValues("limiter.limiters.billing.algorithm=fixed-window", "limiter.limiters.billing.limit=1000",
                "limiter.limiters.billing.window=1mo", "limiter.limiters.billing.zone=Europe/Berlin", "limiter.limiters.billing.anchor-day=15")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
                RateLimiter billing = context.getBean(RateLimiterRegistry.class).get("billing");

                WebEndpointResponse<RetuneDescriptor> limit = retune(endpoint, "500", null, null, null);
                assertThat(limit.getStatus()).isEqualTo(200);
                assertThat(limit.getBody().current().limits()).containsExactly(new LimitDescriptor(500, "1mo", null, "Europe/Berlin", 15));
                assertThat(billing.config().limits()).containsExactly(LimitSpec.perCalendar(500, CalendarWindow.months(BERLIN, 15)));

                // 23:00 on March 14 in Berlin is 18:00 in New York: the month from the 1st ends on April 1 there.
                ZoneId newYork = ZoneId.of("America/New_York");
                WebEndpointResponse<RetuneDescriptor> moved = retune(endpoint, null, null, "America/New_York", "1");
                assertThat(moved.getStatus()).isEqualTo(200);
                assertThat(moved.getBody().current().limits()).containsExactly(new LimitDescriptor(500, "1mo", null, "America/New_York", 1));
                assertThat(billing.config().limits()).containsExactly(LimitSpec.perCalendar(500, CalendarWindow.months(newYork, 1)));
                long aprilFirst = LocalDateTime.parse("2026-04-01T00:00").atZone(newYork).toInstant().toEpochMilli() * 1_000L;
                assertThat(billing.tryAcquire("customer-1").resetAfter())
                    .isEqualTo(Duration.ofNanos((aprilFirst - context.getBean(VirtualClock.class).nowMicros()) * 1_000L));

                // A window of an hour with the zone still set: refused, saying to remove the zone, and the month stays.
                WebEndpointResponse<RetuneDescriptor> hourWithZone = retune(endpoint, null, "1h", null, "");
                assertThat(hourWithZone.getStatus()).isEqualTo(400);
                assertThat(hourWithZone.getBody().refused().property()).isEqualTo("limiter.limiters.billing.window");
                assertThat(hourWithZone.getBody().refused().action()).contains("remove limiter.limiters.billing.zone");
                assertThat(billing.config().limits()).containsExactly(LimitSpec.perCalendar(500, CalendarWindow.months(newYork, 1)));

                // A calendar day in the same zone, without the anchor day of months.
                WebEndpointResponse<RetuneDescriptor> day = retune(endpoint, null, "1d", null, "");
                assertThat(day.getStatus()).as("%s", day.getBody().refused()).isEqualTo(200);
                assertThat(billing.config().limits()).containsExactly(LimitSpec.perCalendar(500, CalendarWindow.days(newYork)));

                // A retune keeps a calendar limiter one: no zone is refused, and the days stay.
                WebEndpointResponse<RetuneDescriptor> noZone = retune(endpoint, null, null, "", null);
                assertThat(noZone.getStatus()).isEqualTo(400);
                assertThat(noZone.getBody().refused().property()).isEqualTo("limiter.limiters.billing.zone");
                assertThat(billing.config().limits()).containsExactly(LimitSpec.perCalendar(500, CalendarWindow.days(newYork)));
            });
    }

    private static WebEndpointResponse<RetuneDescriptor> retune(LimitersEndpoint endpoint, String limit, String window, String zone,
            String anchorDay) {
        return endpoint.retune("billing", null, limit, window, null, null, null, null, null, null, null, null, zone, anchorDay);
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
    void monthInOneOfSeveralLimitsWithoutZone() {
        failure(new String[] { "algorithm=fixed-window", "limits[0].limit=5", "limits[0].window=1mo" }, "limiter.limiters.q.limits[0].window",
                "1mo", "limiter.limiters.q.zone");
    }

    /** Under a zone, a day among several limits is a calendar day; an hour beside it stays an hour. */
    @Test
    void aCalendarDayBesideAnHourAmongSeveralLimits() {
        this.contextRunner.withPropertyValues("limiter.limiters.api.algorithm=fixed-window", "limiter.limiters.api.zone=Europe/Berlin",
                "limiter.limiters.api.limits[0].limit=10", "limiter.limiters.api.limits[0].window=1h",
                "limiter.limiters.api.limits[1].limit=15", "limiter.limiters.api.limits[1].window=1d")
            .run((context) -> {
                RateLimiter api = context.getBean(RateLimiterRegistry.class).get("api");
                assertThat(api.config().limits()).containsExactly(LimitSpec.of(10, Duration.ofHours(1)),
                        LimitSpec.perCalendar(15, CalendarWindow.days(BERLIN)));
                // 23:00 in Berlin: ten in this hour, then the hour's limit rejects until midnight, which also starts a new day.
                assertThat(api.tryAcquire("k", 10).allowed()).isTrue();
                assertThat(api.tryAcquire("k").retryAfter()).isEqualTo(Duration.ofHours(1));
                context.getBean(VirtualClock.class).advance(Duration.ofHours(1));
                assertThat(api.tryAcquire("k", 10).allowed()).as("a new hour and a new calendar day").isTrue();
                context.getBean(VirtualClock.class).advance(Duration.ofHours(1));
                assertThat(api.tryAcquire("k", 5).allowed()).isTrue();
                Decision spent = api.tryAcquire("k");
                assertThat(spent.allowed()).as("the day's 15 are taken, at 01:00").isFalse();
                assertThat(spent.retryAfter()).as("until midnight, Berlin time").isEqualTo(Duration.ofHours(23));
            });
    }

    /** A limiter's zone and anchor day apply to its plans' windows: a billing month per plan. */
    @Test
    void billingMonthsPerPlan() {
        this.contextRunner.withPropertyValues("limiter.limiters.billing.algorithm=fixed-window", "limiter.limiters.billing.zone=Europe/Berlin",
                "limiter.limiters.billing.anchor-day=15", "limiter.limiters.billing.default-plan=free",
                "limiter.limiters.billing.plans.free.limit=100", "limiter.limiters.billing.plans.free.window=1mo",
                "limiter.limiters.billing.plans.pro.limits[0].limit=50", "limiter.limiters.billing.plans.pro.limits[0].window=1h",
                "limiter.limiters.billing.plans.pro.limits[1].limit=5000", "limiter.limiters.billing.plans.pro.limits[1].window=1mo")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                Map<String, RateLimiter> plans = context.getBean(RateLimiterRegistry.class).plans("billing");
                assertThat(plans.get("free").config().limits()).containsExactly(LimitSpec.perCalendar(100, CalendarWindow.months(BERLIN, 15)));
                assertThat(plans.get("pro").config().limits()).containsExactly(LimitSpec.of(50, Duration.ofHours(1)),
                        LimitSpec.perCalendar(5000, CalendarWindow.months(BERLIN, 15)));
                Decision decision = plans.get("free").tryAcquire("customer-1", 100);
                assertThat(decision.allowed()).isTrue();
                assertThat(plans.get("free").tryAcquire("customer-1").retryAfter()).as("until midnight of the 15th, Berlin time")
                    .isEqualTo(Duration.ofHours(1));
                LimiterDescriptor described = (LimiterDescriptor) context.getBean(LimitersEndpoint.class).limiter("billing");
                assertThat(described.plans().get("free").limits()).containsExactly(new LimitDescriptor(100, "1mo", null, "Europe/Berlin", 15));
            });
    }

    @Test
    void zoneWhereNoLimitHasACalendarWindow() {
        failure(new String[] { "algorithm=fixed-window", "zone=UTC", "limits[0].limit=5", "limits[0].window=1h" }, "limiter.limiters.q.zone",
                "UTC", "1d, 1w or 1mo");
        failure(new String[] { "algorithm=fixed-window", "zone=UTC", "plans.free.limit=5", "plans.free.window=1h" }, "limiter.limiters.q.zone",
                "UTC", "1d, 1w or 1mo");
    }

    @Test
    void anchorDayWhereNoLimitHasAMonth() {
        failure(new String[] { "algorithm=fixed-window", "zone=UTC", "anchor-day=3", "limits[0].limit=5", "limits[0].window=1d" },
                "limiter.limiters.q.anchor-day", "3", "1mo");
        failure(new String[] { "algorithm=fixed-window", "zone=UTC", "anchor-day=3", "plans.free.limit=5", "plans.free.window=1w" },
                "limiter.limiters.q.anchor-day", "3", "1mo");
    }

    @Test
    void aPlansMonthOnAnotherAlgorithm() {
        failure(new String[] { "algorithm=sliding-window", "zone=UTC", "plans.free.limit=5", "plans.free.window=1mo" }, "limiter.limiters.q.zone",
                "UTC", "algorithm=fixed-window");
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
