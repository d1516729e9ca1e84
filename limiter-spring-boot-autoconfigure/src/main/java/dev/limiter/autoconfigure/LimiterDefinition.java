package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.limiter.Algorithm;
import dev.limiter.CalendarWindow;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RetunePolicy;
import dev.limiter.spring.internal.limits.LimitChecks;
import dev.limiter.spring.internal.limits.RateLimitedValues;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;

/**
 * A limiter's effective configuration, {@code limiter.limiters.<name>} merged over the annotation attribute
 * by attribute (else the defaults) and validated as at startup, with where each value came from
 * ({@code sources}, by attribute: the property, the annotation's site, or "default").
 */
record LimiterDefinition(RateLimiterConfig config, Map<String, String> sources) {

    /**
     * The definition of limiter {@code name} by {@code properties} over {@code annotation} (null for none).
     *
     * @param site where the limiter is used, for messages: "limiter.limiters.x" or "@RateLimited on A.m()"
     */
    static LimiterDefinition merge(LimiterProperties properties, String name, @Nullable RateLimitedValues annotation, String site) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        // One pass over the values, each taken from the property, else the annotation, else the default, and
        // noted with where it came from.
        Map<String, String> from = new LinkedHashMap<>();
        Algorithm algorithm = algorithm(name, configured, annotation, site, from);
        List<LimitSpec> limits = limits(name, algorithm, configured, annotation, site, from);
        int subWindows = subWindows(name, configured, annotation, from);
        Duration maxWait = maxWait(name, configured, annotation, from);
        FailurePolicy onRedisFailure = onRedisFailure(name, configured, from);
        RetunePolicy onRetune = (configured != null && configured.getOnRetune() != null) ? configured.getOnRetune() : RetunePolicy.RESET;
        from.put("on-retune", (configured != null && configured.getOnRetune() != null) ? property(name, "on-retune") : "default");
        RateLimiterConfig.Lease lease = lease(name, algorithm, configured, from);
        try {
            return new LimiterDefinition(new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease),
                    Collections.unmodifiableMap(from));
        }
        catch (IllegalArgumentException ex) {
            String where = (configured != null && !configured.getLimits().isEmpty()) ? property(name, "limits") : site;
            throw new LimiterConfigurationException(where, algorithm + " " + limits, "Limiter '" + name + "': " + ex.getMessage(),
                    "Correct the limits of limiter '" + name + "'");
        }
    }

    /** {@code limiter.limiters.<name>.<attribute>}, or {@code limiter.limiters.<name>} for an empty attribute. */
    static String property(String name, String attribute) {
        return "limiter.limiters." + name + (attribute.isEmpty() ? "" : "." + attribute);
    }

    static Algorithm algorithm(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimitedValues annotation,
            String site, Map<String, String> from) {
        if (configured != null && configured.getAlgorithm() != null) {
            from.put("algorithm", property(name, "algorithm"));
            return configured.getAlgorithm();
        }
        from.put("algorithm", (annotation != null) ? site : "default");
        return (annotation != null) ? annotation.algorithm() : Algorithm.TOKEN_BUCKET;
    }

    /** Configured limits replace the annotation's; otherwise limit, window and burst are merged one by one. */
    private static List<LimitSpec> limits(String name, Algorithm algorithm, LimiterProperties.@Nullable Limiter configured,
            @Nullable RateLimitedValues annotation, String site, Map<String, String> from) {
        boolean configuredSingle = configured != null
                && (configured.getLimit() != null || configured.getWindow() != null || configured.getBurst() != null);
        if (configured != null && !configured.getLimits().isEmpty()) {
            if (configuredSingle) {
                // Boot's own exception: its failure analysis lists the properties and where each is set.
                throw mutuallyExclusive(property(name, ""), configured.getLimit(), configured.getWindow(), configured.getBurst());
            }
            from.put("limits", property(name, "limits"));
            List<LimitSpec> limits = configuredLimits(name, configured, property(name, ""), algorithm, configured.getLimits());
            checkCalendarUsed(name, configured, limits);
            return limits;
        }
        // The annotation's limits refuse its limit or window beside them, even where a configured limit would replace both.
        if (annotation != null && annotation.setsLimits() && (annotation.setsLimit() || !configuredSingle)) {
            List<LimitSpec> limits = annotation.limits();
            from.put("limits", site);
            return limits;
        }
        long limit = limit(name, configured, annotation, site, from);
        Duration window = window(name, configured, annotation, site, from);
        long burst = burst(name, algorithm, limit, configured, annotation, from);
        LimitSpec spec = LimitChecks.spec(limit, window, burst, site);
        CalendarWindow calendar = calendar(name, algorithm, configured, window);
        return List.of((calendar != null) ? LimitSpec.perCalendar(limit, calendar) : spec);
    }

    /**
     * The calendar of limiter {@code name}'s window (docs/calendar-windows.md): null unless its zone, its
     * anchor day or a window of 1w or 1mo is set; refuses what would not count calendar windows.
     */
    private static @Nullable CalendarWindow calendar(String name, Algorithm algorithm, LimiterProperties.@Nullable Limiter configured,
            Duration window) {
        if (configured == null || (configured.getZone() == null && configured.getAnchorDay() == null && configured.windowUnit() == null)) {
            return null;
        }
        java.time.ZoneId zone = configured.getZone();
        if (zone == null) {
            String set = (configured.windowUnit() != null) ? "window" : "anchor-day";
            throw new LimiterConfigurationException(property(name, set), (set.equals("window")) ? "1" + unitText(configured.windowUnit())
                    : configured.getAnchorDay(), "Calendar windows start at midnight of a time zone, and limiter '" + name + "' names none",
                    "Set " + property(name, "zone") + " (for example UTC or Europe/Berlin)");
        }
        checkCountsCalendars(name, algorithm, zone);
        CalendarWindow.Unit unit = configured.windowUnit();
        if (unit == null) {
            if (!window.equals(CalendarWindow.Unit.DAY.nominal())) {
                throw new LimiterConfigurationException(property(name, "window"), window, "With a zone, limiter '" + name
                        + "' counts calendar windows: a day, a week or a month", "Set " + property(name, "window")
                                + " to 1d, 1w or 1mo, or remove " + property(name, "zone"));
            }
            unit = CalendarWindow.Unit.DAY;
        }
        Integer anchorDay = configured.getAnchorDay();
        if (anchorDay != null && unit != CalendarWindow.Unit.MONTH) {
            throw new LimiterConfigurationException(property(name, "anchor-day"), anchorDay, "An anchor day applies to month windows (1mo) only, not to 1"
                    + unitText(unit), "Set " + property(name, "window") + "=1mo, or remove " + property(name, "anchor-day"));
        }
        return new CalendarWindow(unit, zone, (anchorDay != null) ? checkAnchorDay(name, anchorDay) : 1);
    }

    private static String unitText(CalendarWindow.@Nullable Unit unit) {
        return (unit == CalendarWindow.Unit.MONTH) ? "mo" : (unit == CalendarWindow.Unit.WEEK) ? "w" : "d";
    }

    /**
     * Boot's exception for several limits and a single limit set together under {@code base} (a limiter or a
     * plan), naming those set.
     */
    static MutuallyExclusiveConfigurationPropertiesException mutuallyExclusive(String base, @Nullable Object limit, @Nullable Object window,
            @Nullable Object burst) {
        Set<String> set = new LinkedHashSet<>();
        set.add(base + ".limits");
        if (limit != null) {
            set.add(base + ".limit");
        }
        if (window != null) {
            set.add(base + ".window");
        }
        if (burst != null) {
            set.add(base + ".burst");
        }
        return new MutuallyExclusiveConfigurationPropertiesException(set,
                List.of(base + ".limits", base + ".limit", base + ".window", base + ".burst"));
    }

    /**
     * @param name the limiter
     * @param owner the limiter's properties, whose zone and anchor day make windows of 1d, 1w and 1mo calendar windows
     * @param base the property holding the limits, such as limiter.limiters.api or limiter.limiters.api.plans.pro
     */
    static List<LimitSpec> configuredLimits(String name, LimiterProperties.Limiter owner, String base, Algorithm algorithm,
            List<LimiterProperties.Limit> configured) {
        List<LimitSpec> limits = new ArrayList<>();
        for (int i = 0; i < configured.size(); i++) {
            LimiterProperties.Limit limit = configured.get(i);
            String where = base + ".limits[" + i + "]";
            if (limit.getLimit() == null || limit.getWindow() == null) {
                throw new LimiterConfigurationException(where, (limit.getLimit() == null ? "no limit" : "no window"),
                        "Each of several limits needs a limit and a window", "Set " + where + ".limit and " + where + ".window");
            }
            limits.add(configuredLimit(name, owner, where, algorithm, limit));
        }
        return limits;
    }

    /**
     * One limit set by properties under {@code where} (one of several, or a plan's): a calendar window when its
     * window is 1d, 1w or 1mo and limiter {@code name} has a zone, else a window of that length.
     */
    static LimitSpec configuredLimit(String name, LimiterProperties.Limiter owner, String where, Algorithm algorithm,
            LimiterProperties.Limit limit) {
        Long permits = limit.getLimit();
        Duration window = limit.getWindow();
        if (permits == null || window == null) {
            throw new IllegalStateException("limit and window are checked before");
        }
        LimitSpec spec = configuredLimit(where, algorithm, permits, window, limit.getBurst());
        CalendarWindow calendar = calendarOf(name, algorithm, owner, limit, where);
        return (calendar != null) ? LimitSpec.perCalendar(spec.limit(), calendar) : spec;
    }

    /**
     * The calendar window of one of several limits or a plan's: null for a window of fixed length. Under a
     * limiter with a zone, a window of one day, week or month follows its calendar (months from its anchor
     * day); 1w and 1mo without a zone are refused.
     */
    private static @Nullable CalendarWindow calendarOf(String name, Algorithm algorithm, LimiterProperties.Limiter owner,
            LimiterProperties.Limit limit, String where) {
        CalendarWindow.Unit unit = limit.windowUnit();
        java.time.ZoneId zone = owner.getZone();
        if (unit == null && (zone == null || !CalendarWindow.Unit.DAY.nominal().equals(limit.getWindow()))) {
            return null;
        }
        if (zone == null) {
            throw new LimiterConfigurationException(where + ".window", "1" + unitText(unit), "Calendar windows start at midnight of a time "
                    + "zone, and limiter '" + name + "' names none", "Set " + property(name, "zone") + " (for example UTC or Europe/Berlin), "
                            + "or a length such as 7d here");
        }
        checkCountsCalendars(name, algorithm, zone);
        CalendarWindow.Unit calendarUnit = (unit != null) ? unit : CalendarWindow.Unit.DAY;
        Integer anchorDay = owner.getAnchorDay();
        return new CalendarWindow(calendarUnit, zone, (anchorDay != null && calendarUnit == CalendarWindow.Unit.MONTH)
                ? checkAnchorDay(name, anchorDay) : 1);
    }

    /**
     * Refuses a zone that makes no window a calendar window, and an anchor day that starts no month window,
     * among the limits of limiter {@code name} (several, or every plan's).
     */
    static void checkCalendarUsed(String name, LimiterProperties.Limiter owner, List<LimitSpec> limits) {
        if (owner.getZone() != null && limits.stream().noneMatch((limit) -> limit.calendar() != null)) {
            throw new LimiterConfigurationException(property(name, "zone"), owner.getZone(), "With a zone, limiter '" + name
                    + "' counts its windows of 1d, 1w and 1mo by the calendar, and none of its limits has one",
                    "Give a limit a window of 1d, 1w or 1mo, or remove " + property(name, "zone"));
        }
        if (owner.getAnchorDay() != null && limits.stream().noneMatch((limit) -> limit.calendar() != null
                && limit.calendar().unit() == CalendarWindow.Unit.MONTH)) {
            throw new LimiterConfigurationException(property(name, "anchor-day"), owner.getAnchorDay(), "An anchor day applies to month "
                    + "windows (1mo) only, and no limit of limiter '" + name + "' has one", "Give a limit a window of 1mo, or remove "
                            + property(name, "anchor-day"));
        }
    }

    /** Refuses calendar windows (limiter {@code name} has a zone) to an algorithm other than fixed-window. */
    private static void checkCountsCalendars(String name, Algorithm algorithm, java.time.ZoneId zone) {
        if (algorithm != Algorithm.FIXED_WINDOW) {
            throw new LimiterConfigurationException(property(name, "zone"), zone, "Calendar windows are counted by fixed-window only, not by "
                    + algorithm.configName(), "Set " + property(name, "algorithm") + "=fixed-window, or remove " + property(name, "zone"));
        }
    }

    private static int checkAnchorDay(String name, int anchorDay) {
        if (anchorDay < 1 || anchorDay > 31) {
            throw new LimiterConfigurationException(property(name, "anchor-day"), anchorDay, "The anchor day is a day of the month",
                    "Set " + property(name, "anchor-day") + " between 1 and 31 (31: the last day of every month)");
        }
        return anchorDay;
    }

    /** A limit set by properties under {@code where}: limit, window, and burst (default: the limit). */
    static LimitSpec configuredLimit(String where, Algorithm algorithm, long limit, Duration window, @Nullable Long burst) {
        long permits = LimitChecks.positive(limit, where + ".limit", "permits per window");
        LimitChecks.window(window, where + ".window");
        long capacity = permits;
        if (burst != null) {
            capacity = LimitChecks.positive(burst, where + ".burst", "bucket capacity");
            LimitChecks.burst(algorithm, permits, capacity, where + ".burst");
        }
        return LimitChecks.spec(permits, window, capacity, where);
    }

    private static long limit(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimitedValues annotation,
            String site, Map<String, String> from) {
        if (configured != null && configured.getLimit() != null) {
            from.put("limit", property(name, "limit"));
            return LimitChecks.positive(configured.getLimit(), property(name, "limit"), "permits per window");
        }
        Long limit = (annotation != null) ? annotation.limit() : null;
        if (limit != null) {
            from.put("limit", site);
            return limit;
        }
        throw new LimiterConfigurationException(property(name, "limit"), "(not set)",
                "Limiter '" + name + "' used by " + site + " has no limit",
                "Set limiter.limiters." + name + ".limit (or limits), or limit in the annotation");
    }

    private static Duration window(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimitedValues annotation,
            String site, Map<String, String> from) {
        if (configured != null && configured.getWindow() != null) {
            from.put("window", property(name, "window"));
            return LimitChecks.window(configured.getWindow(), property(name, "window"));
        }
        Duration window = (annotation != null) ? annotation.window() : null;
        if (window != null) {
            from.put("window", site);
            return window;
        }
        throw new LimiterConfigurationException(property(name, "window"), "(not set)",
                "Limiter '" + name + "' used by " + site + " has no window",
                "Set limiter.limiters." + name + ".window (for example 10s), or window in the annotation");
    }

    private static long burst(String name, Algorithm algorithm, long limit, LimiterProperties.@Nullable Limiter configured,
            @Nullable RateLimitedValues annotation, Map<String, String> from) {
        long burst;
        String where;
        if (configured != null && configured.getBurst() != null) {
            where = property(name, "burst");
            burst = LimitChecks.positive(configured.getBurst(), where, "bucket capacity");
            from.put("burst", where);
        }
        else {
            Long annotated = (annotation != null) ? annotation.burst() : null;
            if (annotation == null || annotated == null) {
                from.put("burst", "default");
                return limit;
            }
            where = annotation.where("burst");
            burst = annotated;
            from.put("burst", annotation.site());
        }
        LimitChecks.burst(algorithm, limit, burst, where);
        return burst;
    }

    static int subWindows(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimitedValues annotation,
            Map<String, String> from) {
        if (configured != null && configured.getSubWindows() != null) {
            from.put("sub-windows", property(name, "sub-windows"));
            return (int) LimitChecks.positive(configured.getSubWindows(), property(name, "sub-windows"), "number of sub-windows");
        }
        Integer subWindows = (annotation != null) ? annotation.subWindows() : null;
        if (annotation != null && subWindows != null) {
            from.put("sub-windows", annotation.site());
            return subWindows;
        }
        from.put("sub-windows", "default");
        return RateLimiterConfig.DEFAULT_SUB_WINDOWS;
    }

    static Duration maxWait(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimitedValues annotation,
            Map<String, String> from) {
        if (configured != null && configured.getMaxWait() != null) {
            from.put("max-wait", property(name, "max-wait"));
            return LimitChecks.maxWait(configured.getMaxWait(), property(name, "max-wait"));
        }
        Duration maxWait = (annotation != null) ? annotation.maxWait() : null;
        if (annotation != null && maxWait != null) {
            from.put("max-wait", annotation.site());
            return maxWait;
        }
        from.put("max-wait", "default");
        return Duration.ZERO;
    }

    /** The limiter's own failure policy; null for limiter.on-redis-failure's. */
    static @Nullable FailurePolicy onRedisFailure(String name, LimiterProperties.@Nullable Limiter configured, Map<String, String> from) {
        FailurePolicy onRedisFailure = (configured != null) ? configured.getOnRedisFailure() : null;
        from.put("on-redis-failure", (onRedisFailure != null) ? property(name, "on-redis-failure") : "limiter.on-redis-failure");
        return onRedisFailure;
    }

    /** The lease of limiter {@code name}: configuration only (no annotation attribute), off unless set. */
    static RateLimiterConfig.@Nullable Lease lease(String name, Algorithm algorithm, LimiterProperties.@Nullable Limiter configured,
            Map<String, String> from) {
        LimiterProperties.Lease lease = (configured != null) ? configured.getLease() : null;
        if (lease == null || (lease.getPermits() == null && lease.getTtl() == null)) {
            from.put("lease", "default");
            return null;
        }
        from.put("lease", property(name, "lease"));
        Long permits = lease.getPermits();
        Duration ttl = lease.getTtl();
        if (permits == null || ttl == null) {
            String missing = (permits == null) ? "permits" : "ttl";
            throw new LimiterConfigurationException(property(name, "lease." + missing), "(not set)", "Limiter '" + name
                    + "' leases only with both lease.permits and lease.ttl", "Set " + property(name, "lease." + missing)
                            + ((permits == null) ? " (such as 10)" : " (such as 100ms)") + ", or remove " + property(name, "lease"));
        }
        if (!algorithm.isBucket()) {
            throw new LimiterConfigurationException(property(name, "lease"), "permits " + permits + ", ttl " + ttl, "Leasing applies "
                    + "to token-bucket, leaky-bucket and gcra, not to " + algorithm, "Remove " + property(name, "lease")
                            + ", or choose algorithm token-bucket, leaky-bucket or gcra");
        }
        LimitChecks.positive(permits, property(name, "lease.permits"), "number of permits leased");
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(RateLimiterConfig.MAX_LEASE_TTL) > 0 || ttl.getNano() % 1_000 != 0) {
            throw new LimiterConfigurationException(property(name, "lease.ttl"), ttl, "A lease's time-to-live must be whole microseconds "
                    + "above 0 and at most " + RateLimiterConfig.MAX_LEASE_TTL.toMinutes() + " minutes",
                    "Set a short time such as 50ms or 1s: leased permits unused by then are lost to the key");
        }
        return new RateLimiterConfig.Lease(permits, ttl);
    }
}
