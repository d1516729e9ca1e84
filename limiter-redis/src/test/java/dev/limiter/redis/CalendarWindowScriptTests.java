package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.CalendarWindow;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The fixed-window script counts calendar windows by the boundaries Java sends, and decides exactly as
 * the in-memory twin does across window ends: DST days, short months, year ends.
 */
@RedisTest
class CalendarWindowScriptTests {

    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    record Case(String name, CalendarWindow calendar, String start, ZoneId zone, long limit, long maxStepMinutes) {

        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        return List.of(new Case("Berlin day, spring change", CalendarWindow.days(BERLIN), "2026-03-27T20:00", BERLIN, 5, 90),
                new Case("Berlin day, autumn change", CalendarWindow.days(BERLIN), "2026-10-24T20:00", BERLIN, 5, 90),
                new Case("New York day, spring change", CalendarWindow.days(NEW_YORK), "2026-03-07T20:00", NEW_YORK, 5, 90),
                new Case("New York day, autumn change", CalendarWindow.days(NEW_YORK), "2026-10-31T20:00", NEW_YORK, 5, 90),
                new Case("week across the year end", CalendarWindow.weeks(BERLIN), "2026-12-24T00:00", BERLIN, 20, 600),
                new Case("month anchor 31 through February", CalendarWindow.months(ZoneOffset.UTC, 31), "2026-01-20T00:00", ZoneOffset.UTC, 20, 2880),
                new Case("month anchor 15 in Berlin", CalendarWindow.months(BERLIN, 15), "2026-02-25T00:00", BERLIN, 20, 2880));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void scriptAndTwinDecideAlikeAcrossWindowEnds(Case c) {
        VirtualClock clock = new VirtualClock(at(c.start(), c.zone()));
        RateLimiterConfig config = RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.perCalendar(c.limit(), c.calendar()));
        RedisRateLimiter redis = (RedisRateLimiter) Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("cal", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("cal", config);
        Random random = new Random(28);
        long windowsSeen = 0;
        long lastStart = c.calendar().windowStart(clock.nowMicros());
        int allowed = 0;
        for (int step = 0; step < 300; step++) {
            clock.advanceMicros(random.nextLong(c.maxStepMinutes() * 60_000_000L));
            long cost = 1 + random.nextInt(2);
            Decision fromRedis = redis.tryAcquire("k", cost);
            Decision fromMemory = memory.tryAcquire("k", cost);
            assertEquals(fromMemory, fromRedis, c + ", step " + step + " at " + Instant.ofEpochSecond(0, clock.nowMicros() * 1000));
            long start = c.calendar().windowStart(clock.nowMicros());
            long end = c.calendar().windowEnd(start);
            if (fromRedis.allowed()) {
                allowed++;
                // Reset (the RateLimit field's t) counts to the calendar boundary; so does the key's TTL.
                assertThat(fromRedis.resetAfter()).isEqualTo(Duration.ofNanos((end - clock.nowMicros()) * 1000));
                assertThat(TestRedisSupport.pttl(TestRedisSupport.shared(), redis.redisKey("k")))
                    .isPositive().isLessThanOrEqualTo(fromRedis.resetAfter().toMillis() + 1);
            }
            else {
                assertThat(fromRedis.retryAfter()).isEqualTo(Duration.ofNanos((end - clock.nowMicros()) * 1000));
            }
            if (start != lastStart) {
                windowsSeen++;
                lastStart = start;
            }
        }
        assertThat(windowsSeen).as("window ends crossed").isGreaterThanOrEqualTo(2);
        assertThat(allowed).isBetween(10, 290);
    }

    /** A calendar day beside an hourly limit: both windows in one state, the calendar's by its start. */
    @Test
    void calendarDayBesideAnHourlyLimit() {
        VirtualClock clock = new VirtualClock(at("2026-03-28T22:30", BERLIN));
        RateLimiterConfig config = RateLimiterConfig.builder(Algorithm.FIXED_WINDOW).limit(3, Duration.ofHours(1))
            .limit(LimitSpec.perCalendar(10, CalendarWindow.days(BERLIN))).build();
        RateLimiter redis = Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("two", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("two", config);
        Random random = new Random(7);
        for (int step = 0; step < 200; step++) {
            clock.advanceMicros(random.nextLong(20 * 60_000_000L));
            assertEquals(memory.tryAcquire("k"), redis.tryAcquire("k"), "step " + step);
        }
    }

    /** Two calendar windows in one state (a day and a billing month, as a plan may have): each by its own boundaries. */
    @Test
    void calendarDayBesideABillingMonth() {
        VirtualClock clock = new VirtualClock(at("2026-02-26T22:30", BERLIN));
        RateLimiterConfig config = RateLimiterConfig.builder(Algorithm.FIXED_WINDOW).limit(LimitSpec.perCalendar(4, CalendarWindow.days(BERLIN)))
            .limit(LimitSpec.perCalendar(30, CalendarWindow.months(BERLIN, 1))).build();
        RateLimiter redis = Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("two", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("two", config);
        Random random = new Random(11);
        int allowed = 0;
        for (int step = 0; step < 300; step++) {
            clock.advanceMicros(random.nextLong(4 * 60 * 60_000_000L));
            Decision fromRedis = redis.tryAcquire("k");
            assertEquals(memory.tryAcquire("k"), fromRedis, "step " + step);
            allowed += fromRedis.allowed() ? 1 : 0;
        }
        // About 25 days: the month's 30 (twice, across March 1) bind, not only the day's 4.
        assertThat(allowed).isBetween(31, 99);
    }

    /** In production Redis TIME decides, among the boundaries around the application's clock. */
    @Test
    void redisTimeDecidesTheDay() {
        StringRedisTemplate template = TestRedisSupport.shared();
        RateLimiter limiter = RedisRateLimiterFactory.builder(template).keyPrefix(TestRedisSupport.uniquePrefix()).build()
            .create("daily", RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.perCalendar(2, CalendarWindow.days(NEW_YORK))));
        long now = System.currentTimeMillis() * 1000;
        long end = CalendarWindow.days(NEW_YORK).windowEnd(CalendarWindow.days(NEW_YORK).windowStart(now));
        Decision first = limiter.tryAcquire("k", 2);
        assertThat(first.allowed()).isTrue();
        assertThat(first.resetAfter().toNanos() / 1000).isBetween(end - now - 60_000_000L, end - now);
        Decision rejected = limiter.tryAcquire("k");
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter().toNanos() / 1000).isBetween(end - now - 60_000_000L, end - now);
    }

    /** A time outside the boundaries sent (clocks more than a day apart) fails the decision instead of counting a wrong window. */
    @Test
    void timeOutsideTheBoundariesFailsLoudly() {
        RateLimiterConfig config = RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.perCalendar(2, CalendarWindow.days(BERLIN)));
        ScriptCodec codec = ScriptCodec.of(config);
        long now = at("2026-06-01T12:00", BERLIN);
        String[] args = codec.arguments(now, 1);
        args[0] = Long.toString(now + Duration.ofDays(3).toNanos() / 1000);
        String key = TestRedisSupport.uniquePrefix() + ":{cal}";
        assertThatThrownBy(() -> TestRedisSupport.shared().execute(LuaScript.of(Algorithm.FIXED_WINDOW), List.of(key), (Object[]) args))
            .hasStackTraceContaining("outside the boundaries the application sent");
        assertThat(TestRedisSupport.exists(TestRedisSupport.shared(), key)).isFalse();
        args[0] = Long.toString(now - Duration.ofDays(2).toNanos() / 1000);
        assertThatThrownBy(() -> TestRedisSupport.shared().execute(LuaScript.of(Algorithm.FIXED_WINDOW), List.of(key), (Object[]) args))
            .hasStackTraceContaining("more than a day");
    }

    static long at(String local, ZoneId zone) {
        Instant instant = LocalDateTime.parse(local).atZone(zone).toInstant();
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
    }
}
