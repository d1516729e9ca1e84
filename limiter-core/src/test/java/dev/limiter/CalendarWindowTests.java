package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.junit.jupiter.api.Test;

/** The boundary arithmetic of calendar windows, with explicit times, and the in-memory fixed window counting by it. */
class CalendarWindowTests {

    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    @Test
    void dayRunsFromMidnightToMidnightInItsZone() {
        CalendarWindow day = CalendarWindow.days(BERLIN);
        long now = at("2026-03-10T15:30", BERLIN);
        assertThat(day.windowStart(now)).isEqualTo(at("2026-03-10T00:00", BERLIN));
        assertThat(day.windowEnd(day.windowStart(now))).isEqualTo(at("2026-03-11T00:00", BERLIN));
        // Midnight itself starts the new day; a microsecond before ends the old.
        assertThat(day.windowStart(at("2026-03-11T00:00", BERLIN))).isEqualTo(at("2026-03-11T00:00", BERLIN));
        assertThat(day.windowStart(at("2026-03-11T00:00", BERLIN) - 1)).isEqualTo(at("2026-03-10T00:00", BERLIN));
    }

    @Test
    void daysOfDaylightSavingChangesLast23And25Hours() {
        CalendarWindow berlin = CalendarWindow.days(BERLIN);
        // Europe/Berlin: clocks go forward on 2026-03-29 and back on 2026-10-25.
        assertThat(length(berlin, at("2026-03-29T12:00", BERLIN))).isEqualTo(Duration.ofHours(23));
        assertThat(length(berlin, at("2026-10-25T12:00", BERLIN))).isEqualTo(Duration.ofHours(25));
        assertThat(length(berlin, at("2026-10-26T12:00", BERLIN))).isEqualTo(Duration.ofHours(24));
        // Between 02:00 and 03:00 of the 25-hour day (that hour comes twice), still the same day.
        long repeated = Instant.parse("2026-10-25T00:30:00Z").toEpochMilli() * 1000;
        assertThat(berlin.windowStart(repeated)).isEqualTo(at("2026-10-25T00:00", BERLIN));
        CalendarWindow newYork = CalendarWindow.days(NEW_YORK);
        // America/New_York: forward on 2026-03-08, back on 2026-11-01.
        assertThat(length(newYork, at("2026-03-08T12:00", NEW_YORK))).isEqualTo(Duration.ofHours(23));
        assertThat(length(newYork, at("2026-11-01T12:00", NEW_YORK))).isEqualTo(Duration.ofHours(25));
        // Midnight in New York is 05:00 UTC in winter and 04:00 UTC in summer.
        assertThat(newYork.windowStart(at("2026-07-01T12:00", NEW_YORK))).isEqualTo(micros(Instant.parse("2026-07-01T04:00:00Z")));
        assertThat(newYork.windowStart(at("2026-01-15T12:00", NEW_YORK))).isEqualTo(micros(Instant.parse("2026-01-15T05:00:00Z")));
    }

    @Test
    void weeksStartOnMondayAcrossYearEnds() {
        CalendarWindow week = CalendarWindow.weeks(BERLIN);
        // Thursday 2026-12-31 lies in the week of Monday 2026-12-28, which ends Monday 2027-01-04.
        long start = week.windowStart(at("2026-12-31T23:59", BERLIN));
        assertThat(start).isEqualTo(at("2026-12-28T00:00", BERLIN));
        assertThat(week.windowEnd(start)).isEqualTo(at("2027-01-04T00:00", BERLIN));
        assertThat(week.windowStart(at("2027-01-03T23:59", BERLIN))).isEqualTo(start);
        // A Monday is the first day of its own week; a Sunday the last of the week before.
        assertThat(week.windowStart(at("2025-12-29T00:00", BERLIN))).isEqualTo(at("2025-12-29T00:00", BERLIN));
        assertThat(week.windowStart(at("2026-01-04T10:00", BERLIN))).isEqualTo(at("2025-12-29T00:00", BERLIN));
        // The week of the spring change is an hour short.
        assertThat(length(week, at("2026-03-26T12:00", BERLIN))).isEqualTo(Duration.ofDays(7).minusHours(1));
    }

    @Test
    void monthsFromTheFirstFollowTheirLengths() {
        CalendarWindow month = CalendarWindow.months(BERLIN, 1);
        long january = month.windowStart(at("2026-01-31T23:00", BERLIN));
        assertThat(january).isEqualTo(at("2026-01-01T00:00", BERLIN));
        assertThat(month.windowEnd(january)).isEqualTo(at("2026-02-01T00:00", BERLIN));
        assertThat(length(month, at("2026-02-15T00:00", BERLIN))).isEqualTo(Duration.ofDays(28));
        assertThat(length(month, at("2028-02-15T00:00", BERLIN))).isEqualTo(Duration.ofDays(29));
        // March has its spring change: 31 days less an hour.
        assertThat(length(month, at("2026-03-15T00:00", BERLIN))).isEqualTo(Duration.ofDays(31).minusHours(1));
    }

    @Test
    void anchorDay31StartsOnTheLastDayOfShorterMonths() {
        CalendarWindow month = CalendarWindow.months(ZoneOffset.UTC, 31);
        // Jan 31 -> Feb 28 (2026) -> Mar 31 -> Apr 30.
        assertThat(month.windowStart(at("2026-02-10T00:00", ZoneOffset.UTC))).isEqualTo(at("2026-01-31T00:00", ZoneOffset.UTC));
        assertThat(month.windowEnd(at("2026-01-31T00:00", ZoneOffset.UTC))).isEqualTo(at("2026-02-28T00:00", ZoneOffset.UTC));
        assertThat(month.windowStart(at("2026-02-28T00:00", ZoneOffset.UTC))).isEqualTo(at("2026-02-28T00:00", ZoneOffset.UTC));
        assertThat(month.windowEnd(at("2026-02-28T00:00", ZoneOffset.UTC))).isEqualTo(at("2026-03-31T00:00", ZoneOffset.UTC));
        assertThat(month.windowStart(at("2026-03-30T23:59", ZoneOffset.UTC))).isEqualTo(at("2026-02-28T00:00", ZoneOffset.UTC));
        assertThat(month.windowEnd(at("2026-03-31T00:00", ZoneOffset.UTC))).isEqualTo(at("2026-04-30T00:00", ZoneOffset.UTC));
        // A leap year: Feb 29.
        assertThat(month.windowEnd(at("2028-01-31T00:00", ZoneOffset.UTC))).isEqualTo(at("2028-02-29T00:00", ZoneOffset.UTC));
        assertThat(month.windowStart(at("2028-02-28T12:00", ZoneOffset.UTC))).isEqualTo(at("2028-01-31T00:00", ZoneOffset.UTC));
    }

    @Test
    void anchorDay15CountsFromThe15thToThe15th() {
        CalendarWindow month = CalendarWindow.months(BERLIN, 15);
        assertThat(month.windowStart(at("2026-03-14T23:59", BERLIN))).isEqualTo(at("2026-02-15T00:00", BERLIN));
        assertThat(month.windowStart(at("2026-03-15T00:00", BERLIN))).isEqualTo(at("2026-03-15T00:00", BERLIN));
        assertThat(month.windowEnd(at("2026-03-15T00:00", BERLIN))).isEqualTo(at("2026-04-15T00:00", BERLIN));
        // Across the year end.
        assertThat(month.windowStart(at("2027-01-02T00:00", BERLIN))).isEqualTo(at("2026-12-15T00:00", BERLIN));
        assertThat(month.windowEnd(at("2026-12-15T00:00", BERLIN))).isEqualTo(at("2027-01-15T00:00", BERLIN));
    }

    @Test
    void boundariesCoverTheToleratedSkewBothWays() {
        CalendarWindow day = CalendarWindow.days(BERLIN);
        long now = at("2026-03-29T01:00", BERLIN);
        long[] bounds = day.boundaries(now, Duration.ofHours(1));
        assertThat(bounds[0]).isLessThanOrEqualTo(now - CalendarWindow.MAX_CLOCK_SKEW.toNanos() / 1000);
        assertThat(bounds[bounds.length - 1]).isGreaterThan(now + CalendarWindow.MAX_CLOCK_SKEW.toNanos() / 1000 + 3_600_000_000L);
        for (int i = 1; i < bounds.length; i++) {
            assertThat(bounds[i]).isEqualTo(day.windowEnd(bounds[i - 1]));
        }
        assertThat(bounds).contains(at("2026-03-29T00:00", BERLIN), at("2026-03-30T00:00", BERLIN));
    }

    @Test
    void invalidCalendarsAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> CalendarWindow.months(BERLIN, 0)).withMessageContaining("between 1 and 31");
        assertThatIllegalArgumentException().isThrownBy(() -> CalendarWindow.months(BERLIN, 32)).withMessageContaining("but was 32");
        assertThatIllegalArgumentException().isThrownBy(() -> new CalendarWindow(CalendarWindow.Unit.DAY, BERLIN, 15))
            .withMessageContaining("month windows only");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimiterConfig.of(Algorithm.TOKEN_BUCKET,
                LimitSpec.perCalendar(10, CalendarWindow.days(BERLIN)))).withMessageContaining("choose fixed-window");
        assertThatIllegalArgumentException().isThrownBy(() -> new LimitSpec(10, Duration.ofDays(30), 10, CalendarWindow.months(BERLIN, 1)))
            .withMessageContaining("PT744H");
    }

    /** The in-memory fixed window resets at the calendar boundary and says so in reset-after and retry-after. */
    @Test
    void inMemoryFixedWindowResetsAtTheBillingDay() {
        AtomicLong now = new AtomicLong(at("2026-03-14T23:00", BERLIN));
        RateLimiter limiter = InMemoryRateLimiterFactory.builder().clock(now::get).build()
            .create("quota", RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.perCalendar(2, CalendarWindow.months(BERLIN, 15))));
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
        Decision rejected = limiter.tryAcquire("k", 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofHours(1));
        assertThat(rejected.resetAfter()).isEqualTo(Duration.ofHours(1));
        now.set(at("2026-03-15T00:00", BERLIN));
        Decision next = limiter.tryAcquire("k", 1);
        assertThat(next.allowed()).isTrue();
        // To April 15: 31 days, less the hour of the spring change on March 29.
        assertThat(next.resetAfter()).isEqualTo(Duration.ofDays(31).minusHours(1));
    }

    private static Duration length(CalendarWindow window, long now) {
        long start = window.windowStart(now);
        return Duration.ofNanos((window.windowEnd(start) - start) * 1000);
    }

    static long at(String local, ZoneId zone) {
        return micros(LocalDateTime.parse(local).atZone(zone).toInstant());
    }

    static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }
}
