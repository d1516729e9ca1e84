package dev.limiter;

import java.io.Serializable;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/**
 * A fixed window aligned to the calendar of a time zone: a day from midnight, an ISO week from Monday
 * midnight, or a month from midnight of its anchor day (a billing day; in a month shorter than it, its
 * last day). A window lasts as long as the calendar says: a day of a daylight-saving change 23 or 25
 * hours, February 28 or 29 days. Only {@link Algorithm#FIXED_WINDOW} counts calendar windows.
 *
 * @param unit day, week or month
 * @param zone the time zone whose midnight starts a window
 * @param anchorDay day of the month a month window starts on, 1 to 31 (1 for days and weeks)
 */
public record CalendarWindow(Unit unit, ZoneId zone, int anchorDay) implements Serializable {

    /** The calendar unit of a window. */
    public enum Unit {

        /** From midnight to midnight. */
        DAY(Duration.ofDays(1)),

        /** From Monday midnight to Monday midnight (ISO-8601 weeks). */
        WEEK(Duration.ofDays(7)),

        /** From midnight of the anchor day to midnight of the anchor day a month later. */
        MONTH(Duration.ofDays(31));

        private final Duration longest;

        Unit(Duration longest) {
            this.longest = longest;
        }

        /** The nominal length of such a window, which sorts it among other limits' windows: 1, 7 or 31 days. */
        public Duration nominal() {
            return longest;
        }
    }

    /**
     * Tolerated difference between the application's clock and Redis' TIME: the boundaries a Redis
     * limiter sends with each call cover at least this much before and after the application's now.
     */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofDays(1);

    public CalendarWindow {
        if (unit == null || zone == null) {
            throw new IllegalArgumentException("a calendar window needs a unit and a zone but got " + unit + " and " + zone);
        }
        if (anchorDay < 1 || anchorDay > 31) {
            throw new IllegalArgumentException("anchor day must be between 1 and 31 but was " + anchorDay);
        }
        if (unit != Unit.MONTH && anchorDay != 1) {
            throw new IllegalArgumentException("an anchor day applies to month windows only, not to a " + unit.name().toLowerCase(Locale.ROOT)
                    + " window; remove it or use a month window");
        }
    }

    /** Days from midnight in {@code zone}. */
    public static CalendarWindow days(ZoneId zone) {
        return new CalendarWindow(Unit.DAY, zone, 1);
    }

    /** ISO weeks from Monday midnight in {@code zone}. */
    public static CalendarWindow weeks(ZoneId zone) {
        return new CalendarWindow(Unit.WEEK, zone, 1);
    }

    /** Months from midnight of {@code anchorDay} (1 to 31; the last day of a shorter month) in {@code zone}. */
    public static CalendarWindow months(ZoneId zone, int anchorDay) {
        return new CalendarWindow(Unit.MONTH, zone, anchorDay);
    }

    /** The start of the window holding {@code nowMicros}, in microseconds since the epoch. */
    public long windowStart(long nowMicros) {
        LocalDate date = toInstant(nowMicros).atZone(zone).toLocalDate();
        return micros(firstDay(date));
    }

    /** The end of the window starting at {@code startMicros} (a {@link #windowStart}): the next one's start. */
    public long windowEnd(long startMicros) {
        LocalDate first = toInstant(startMicros).atZone(zone).toLocalDate();
        return micros(switch (unit) {
            case DAY -> first.plusDays(1);
            case WEEK -> first.plusWeeks(1);
            case MONTH -> anchorIn(YearMonth.from(first).plusMonths(1));
        });
    }

    /**
     * The window boundaries around {@code nowMicros}, ascending: from the start of the window holding
     * {@code nowMicros - MAX_CLOCK_SKEW} to the first boundary after {@code nowMicros + MAX_CLOCK_SKEW + slack}.
     * A script, which knows no time zones, picks its window by Redis' time among them.
     */
    public long[] boundaries(long nowMicros, Duration slack) {
        long skew = MAX_CLOCK_SKEW.toNanos() / 1_000;
        long last = nowMicros + skew + slack.toNanos() / 1_000;
        long[] bounds = new long[8];
        int n = 0;
        long b = windowStart(nowMicros - skew);
        bounds[n++] = b;
        while (b <= last) {
            b = windowEnd(b);
            if (n == bounds.length) {
                bounds = java.util.Arrays.copyOf(bounds, 2 * n);
            }
            bounds[n++] = b;
        }
        return java.util.Arrays.copyOf(bounds, n);
    }

    private LocalDate firstDay(LocalDate date) {
        return switch (unit) {
            case DAY -> date;
            case WEEK -> date.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            case MONTH -> {
                LocalDate anchor = anchorIn(YearMonth.from(date));
                yield date.isBefore(anchor) ? anchorIn(YearMonth.from(date).minusMonths(1)) : anchor;
            }
        };
    }

    private LocalDate anchorIn(YearMonth month) {
        return month.atDay(Math.min(anchorDay, month.lengthOfMonth()));
    }

    /** Midnight of {@code date} in the zone (the first valid time, should a change skip midnight). */
    private long micros(LocalDate date) {
        Instant start = date.atStartOfDay(zone).toInstant();
        return start.getEpochSecond() * 1_000_000L + start.getNano() / 1_000L;
    }

    private static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    @Override
    public String toString() {
        return switch (unit) {
            case DAY -> "calendar day";
            case WEEK -> "calendar week from Monday";
            case MONTH -> "calendar month from day " + anchorDay;
        } + " in " + zone;
    }
}
