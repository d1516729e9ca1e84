package dev.limiter.spring.internal.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;

import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * The values a {@link RateLimited} annotation writes itself (algorithm, limit, window, burst, limits,
 * subWindows, maxWait), read and checked without Spring Boot: a mistake fails with a
 * {@link LimiterConfigurationException} naming the attribute, the bad value and the fix. The checks
 * take where a value is written, so they serve configuration properties as well.
 */
public final class RateLimitedValues {

    private RateLimitedValues() {
    }

    /**
     * The configuration of the limiter {@code annotation} names, from its own values alone.
     *
     * @param site where the annotation is declared, for messages, such as {@code @RateLimited on Orders.place(Order)}
     * @throws LimiterConfigurationException naming the first attribute that is missing or cannot work
     */
    public static RateLimiterConfig config(RateLimited annotation, String site) {
        check(annotation, site);
        String name = annotation.name();
        Algorithm algorithm = annotation.algorithm();
        List<LimitSpec> limits = (annotation.limits().length > 0) ? limits(algorithm, annotation, site)
                : List.of(spec(limit(annotation, site), window(annotation, site), burst(annotation), site));
        int subWindows = (annotation.subWindows() != 0) ? annotation.subWindows() : RateLimiterConfig.DEFAULT_SUB_WINDOWS;
        Duration maxWait = annotation.maxWait().isBlank() ? Duration.ZERO : parse(annotation.maxWait(), attribute("maxWait", site));
        try {
            return new RateLimiterConfig(algorithm, limits, subWindows, maxWait);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(site, algorithm + " " + limits, "Limiter '" + name + "': " + ex.getMessage(),
                    "Correct the limits of limiter '" + name + "'");
        }
    }

    /**
     * Checks each value {@code annotation} sets on its own. Attributes left at their defaults (0, "")
     * are not set, so that configuration may supply them, and are not checked.
     *
     * @throws LimiterConfigurationException naming the first attribute whose value cannot work
     */
    public static void check(RateLimited annotation, String site) {
        if (annotation.limit() != 0) {
            positive(annotation.limit(), attribute("limit", site), "permits per window");
        }
        if (!annotation.window().isBlank()) {
            checkWindow(parse(annotation.window(), attribute("window", site)), attribute("window", site));
        }
        if (annotation.burst() != 0) {
            long burst = positive(annotation.burst(), attribute("burst", site), "bucket capacity");
            if (annotation.limit() != 0) {
                checkBurst(annotation.algorithm(), annotation.limit(), burst, attribute("burst", site));
            }
        }
        if (annotation.limits().length > 0) {
            if (annotation.limit() != 0 || !annotation.window().isBlank()) {
                throw new LimiterConfigurationException(attribute("limits", site), String.join(", ", annotation.limits()),
                        "The annotation sets both limits and limit/window", "Keep either limits or limit and window");
            }
            limits(annotation.algorithm(), annotation, site);
        }
        if (annotation.subWindows() != 0) {
            positive(annotation.subWindows(), attribute("subWindows", site), "number of sub-windows");
        }
        if (!annotation.maxWait().isBlank()) {
            String where = attribute("maxWait", site);
            checkedMaxWait(parse(annotation.maxWait(), where), where);
        }
        if (!annotation.plan().isBlank() && !annotation.planResolver().isBlank()) {
            throw new LimiterConfigurationException(attribute("planResolver", site), "\"" + annotation.planResolver() + "\"",
                    "The annotation sets both a plan expression and a plan resolver", "Give either plan or planResolver, not both");
        }
    }

    /** The limits of {@code annotation}'s {@code limits} attribute, each {@code "<limit>/<window>"}. */
    public static List<LimitSpec> limits(Algorithm algorithm, RateLimited annotation, String site) {
        String where = attribute("limits", site);
        List<LimitSpec> limits = new ArrayList<>();
        for (String text : annotation.limits()) {
            int slash = text.indexOf('/');
            long permits;
            Duration window;
            try {
                permits = Long.parseLong(text.substring(0, Math.max(slash, 0)).trim());
                window = DurationFormatterUtils.detectAndParse(text.substring(slash + 1).trim());
            }
            catch (RuntimeException ex) {
                throw new LimiterConfigurationException(where, "\"" + text + "\"", "Not a limit", "Write each limit as \"<limit>/<window>\", "
                        + "such as \"10/1s\" or \"1000/1h\"");
            }
            positive(permits, where, "permits per window");
            checkWindow(window, where);
            if (annotation.burst() != 0) {
                throw new LimiterConfigurationException(attribute("burst", site), annotation.burst(),
                        "A burst cannot apply to several limits at once", "Set a burst per limit under limiter.limiters.<name>.limits");
            }
            limits.add(spec(permits, window, permits, where));
        }
        return limits;
    }

    private static long limit(RateLimited annotation, String site) {
        if (annotation.limit() == 0) {
            throw new LimiterConfigurationException(attribute("limit", site), "(not set)", "Limiter '" + annotation.name() + "' used by "
                    + site + " has no limit", "Set limit and window, or limits, in the annotation");
        }
        return annotation.limit();
    }

    private static Duration window(RateLimited annotation, String site) {
        if (annotation.window().isBlank()) {
            throw new LimiterConfigurationException(attribute("window", site), "(not set)", "Limiter '" + annotation.name() + "' used by "
                    + site + " has no window", "Set window in the annotation, for example window = \"10s\"");
        }
        return parse(annotation.window(), attribute("window", site));
    }

    /** The annotation's burst, checked by {@link #check}; the limit when it sets none. */
    private static long burst(RateLimited annotation) {
        return (annotation.burst() != 0) ? annotation.burst() : annotation.limit();
    }

    /** One limit, refused with {@code where} when its values are out of {@link LimitSpec}'s bounds. */
    public static LimitSpec spec(long limit, Duration window, long burst, String where) {
        try {
            return new LimitSpec(limit, window, burst);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where, limit + "/" + window + " burst " + burst, String.valueOf(ex.getMessage()),
                    "Choose a limit, window and burst within those bounds");
        }
    }

    /**
     * A duration as written in an annotation: {@code "10s"}, {@code "500ms"}, {@code "1h"} or ISO-8601
     * {@code "PT10S"}; a bare number is milliseconds. Spring Framework's parser, which takes what Spring
     * Boot's {@code DurationStyle} takes.
     */
    public static Duration parse(String text, String where) {
        try {
            return DurationFormatterUtils.detectAndParse(text.trim());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where, "\"" + text + "\"", "Not a duration",
                    "Write a duration such as \"10s\", \"500ms\", \"1h\" or \"PT10S\"");
        }
    }

    /** {@code window}, refused with {@code where} unless positive and at most {@link LimitSpec#MAX_WINDOW}. */
    public static Duration checkWindow(Duration window, String where) {
        if (window.isNegative() || window.isZero() || window.compareTo(LimitSpec.MAX_WINDOW) > 0) {
            throw new LimiterConfigurationException(where, window, "The window must be positive and at most " + LimitSpec.MAX_WINDOW.toDays()
                    + " days", "Set a window such as 1s, 10s or 1h");
        }
        return window;
    }

    /** Refuses a burst other than the limit for an algorithm without a bucket. */
    public static void checkBurst(Algorithm algorithm, long limit, long burst, String where) {
        if (!algorithm.isBucket() && burst != limit) {
            throw new LimiterConfigurationException(where, burst, "A burst applies only to bucket algorithms, not to " + algorithm,
                    "Remove the burst, or choose algorithm token-bucket, leaky-bucket or gcra");
        }
    }

    /**
     * {@code maxWait}, refused here with the property or attribute that set it: the limiter's config would
     * refuse it too, but could only blame the limits.
     */
    public static Duration checkedMaxWait(Duration maxWait, String where) {
        if (maxWait.isNegative() || maxWait.compareTo(RateLimiterConfig.MAX_WAIT) > 0 || maxWait.getNano() % 1_000 != 0) {
            throw new LimiterConfigurationException(where, maxWait, "max-wait must be whole microseconds between 0 and "
                    + RateLimiterConfig.MAX_WAIT + " (1 day) but was " + maxWait, "Set " + where + " to a duration from 0s to 1d, "
                    + "such as 500ms: how long a caller may wait for its permits");
        }
        return maxWait;
    }

    /** {@code value}, refused with {@code where} unless between 1 and {@link LimitSpec#MAX_LIMIT}. */
    public static long positive(long value, String where, String what) {
        if (value < 1 || value > LimitSpec.MAX_LIMIT) {
            throw new LimiterConfigurationException(where, value, "The " + what + " must be between 1 and " + LimitSpec.MAX_LIMIT,
                    "Set a whole number of at least 1");
        }
        return value;
    }

    /** "@RateLimited(window) on A.m()" from the site "@RateLimited on A.m()". */
    public static String attribute(String attribute, String site) {
        String annotation = "@RateLimited";
        return site.startsWith(annotation) ? annotation + "(" + attribute + ")" + site.substring(annotation.length())
                : annotation + "(" + attribute + ") " + site;
    }
}
