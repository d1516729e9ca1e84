package dev.limiter.spring.internal.limits;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;
import dev.limiter.spring.internal.interceptor.LimiterPlans.Setting;

import org.jspecify.annotations.Nullable;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * What a {@code @RateLimited} annotation says about its limiter, at one site ("@RateLimited on A.m()"):
 * each attribute parsed and checked on its own, errors naming the attribute ("@RateLimited(window) on
 * A.m()"), the value and the fix. An attribute left at its default (0, "") is not set, and reads as null,
 * so that configuration or a default may supply it. Knows nothing of properties or of Spring Boot:
 * Spring Boot's auto-configuration merges its properties over these values, and {@link #config} makes a
 * limiter of them alone for plain Spring.
 */
public final class RateLimitedValues {

    private final RateLimited annotation;

    private final String site;

    private RateLimitedValues(RateLimited annotation, String site) {
        this.annotation = annotation;
        this.site = site;
    }

    /**
     * The values of {@code annotation} at {@code site} ("@RateLimited on A.m()"), durations read as
     * Spring Boot binds a property's.
     */
    public static RateLimitedValues asPropertiesBind(RateLimited annotation, String site) {
        return new RateLimitedValues(annotation, site);
    }

    /**
     * The configuration of the limiter {@code annotation} names, from its own values alone, for plain
     * Spring.
     *
     * @param site where the annotation is declared, for messages, such as {@code @RateLimited on Orders.place(Order)}
     * @throws LimiterConfigurationException naming the first attribute that is missing or cannot work
     */
    public static RateLimiterConfig config(RateLimited annotation, String site) {
        RateLimitedValues values = withoutBoot(annotation, site);
        values.check();
        String name = annotation.name();
        Algorithm algorithm = values.algorithm();
        List<LimitSpec> limits = values.setsLimits() ? values.limits()
                : List.of(LimitChecks.spec(values.requiredLimit(), values.requiredWindow(), burstOrLimit(annotation), site));
        Integer subWindows = values.subWindows();
        Duration maxWait = values.maxWait();
        try {
            return new RateLimiterConfig(algorithm, limits, (subWindows != null) ? subWindows : RateLimiterConfig.DEFAULT_SUB_WINDOWS,
                    (maxWait != null) ? maxWait : Duration.ZERO);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(site, algorithm + " " + limits, "Limiter '" + name + "': " + ex.getMessage(),
                    "Correct the limits of limiter '" + name + "'");
        }
    }

    /**
     * Checks each value {@code annotation} sets on its own, for plain Spring. Attributes left at their
     * defaults (0, "") are not set and are not checked.
     *
     * @throws LimiterConfigurationException naming the first attribute whose value cannot work
     */
    public static void check(RateLimited annotation, String site) {
        withoutBoot(annotation, site).check();
    }

    private static RateLimitedValues withoutBoot(RateLimited annotation, String site) {
        return new RateLimitedValues(annotation, site);
    }

    public RateLimited annotation() {
        return annotation;
    }

    /** Where the annotation is, such as "@RateLimited on A.m()". */
    public String site() {
        return site;
    }

    /**
     * Checks each value the annotation sets, whether or not configuration replaces it: a value that
     * cannot work is a mistake in the code, which would otherwise surface only once the property is removed.
     */
    public void check() {
        Long limit = limit();
        window();
        Long burst = burst();
        if (burst != null && limit != null) {
            LimitChecks.burst(annotation.algorithm(), limit, burst, where("burst"));
        }
        if (setsLimits()) {
            limits();
        }
        subWindows();
        maxWait();
        plan();
    }

    public Algorithm algorithm() {
        return annotation.algorithm();
    }

    /** Whether the annotation sets one limit: its limit or its window. */
    public boolean setsLimit() {
        return annotation.limit() != 0 || !annotation.window().isBlank();
    }

    /** Whether the annotation sets several limits. */
    public boolean setsLimits() {
        return annotation.limits().length > 0;
    }

    public @Nullable Long limit() {
        return (annotation.limit() != 0) ? LimitChecks.positive(annotation.limit(), where("limit"), "permits per window") : null;
    }

    public @Nullable Duration window() {
        if (annotation.window().isBlank()) {
            return null;
        }
        return LimitChecks.window(duration(annotation.window(), where("window")), where("window"));
    }

    public @Nullable Long burst() {
        return (annotation.burst() != 0) ? LimitChecks.positive(annotation.burst(), where("burst"), "bucket capacity") : null;
    }

    /**
     * The several limits of {@code limits}, each written {@code "<limit>/<window>"}: a burst cannot be
     * written there, nor set with them.
     */
    public List<LimitSpec> limits() {
        String where = where("limits");
        if (setsLimit()) {
            throw new LimiterConfigurationException(where, String.join(", ", annotation.limits()),
                    "The annotation sets both limits and limit/window", "Keep either limits or limit and window");
        }
        List<LimitSpec> limits = new ArrayList<>();
        for (String text : annotation.limits()) {
            LimitNotation.Written written = LimitNotation.limit(text, false);
            if (written == null) {
                throw notALimit(where, text);
            }
            long permits;
            Duration window;
            try {
                permits = Long.parseLong(written.limit());
                window = duration(written.window());
            }
            catch (RuntimeException ex) {
                throw notALimit(where, text);
            }
            LimitChecks.positive(permits, where, "permits per window");
            LimitChecks.window(window, where);
            if (annotation.burst() != 0) {
                throw new LimiterConfigurationException(where("burst"), annotation.burst(),
                        "A burst cannot apply to several limits at once", "Set a burst per limit under limiter.limiters.<name>.limits");
            }
            limits.add(LimitChecks.spec(permits, window, permits, where));
        }
        return limits;
    }

    private long requiredLimit() {
        Long limit = limit();
        if (limit == null) {
            throw new LimiterConfigurationException(where("limit"), "(not set)", "Limiter '" + annotation.name() + "' used by "
                    + site + " has no limit", "Set limit and window, or limits, in the annotation");
        }
        return limit;
    }

    private Duration requiredWindow() {
        Duration window = window();
        if (window == null) {
            throw new LimiterConfigurationException(where("window"), "(not set)", "Limiter '" + annotation.name() + "' used by "
                    + site + " has no window", "Set window in the annotation, for example window = \"10s\"");
        }
        return window;
    }

    /** The annotation's burst; the limit when it sets none. */
    private static long burstOrLimit(RateLimited annotation) {
        return (annotation.burst() != 0) ? annotation.burst() : annotation.limit();
    }

    private static LimiterConfigurationException notALimit(String where, String text) {
        return new LimiterConfigurationException(where, "\"" + text + "\"", "Not a limit", "Write each limit as \"<limit>/<window>\", "
                + "such as \"10/1s\" or \"1000/1h\"");
    }

    public @Nullable Integer subWindows() {
        return (annotation.subWindows() != 0)
                ? (int) LimitChecks.positive(annotation.subWindows(), where("subWindows"), "number of sub-windows") : null;
    }

    public @Nullable Duration maxWait() {
        if (annotation.maxWait().isBlank()) {
            return null;
        }
        String where = where("maxWait");
        return LimitChecks.maxWait(duration(annotation.maxWait(), where), where);
    }

    /** The plan expression; null when not set. */
    public @Nullable Setting plan() {
        if (!annotation.plan().isBlank() && !annotation.planResolver().isBlank()) {
            throw new LimiterConfigurationException(where("planResolver"), "\"" + annotation.planResolver() + "\"",
                    "The annotation sets both a plan expression and a plan resolver", "Give either plan or planResolver, not both");
        }
        return annotation.plan().isBlank() ? null : new Setting(annotation.plan().trim(), where("plan"));
    }

    /** The plan resolver bean; null when not set. */
    public @Nullable Setting planResolver() {
        return annotation.planResolver().isBlank() ? null : new Setting(annotation.planResolver().trim(), where("planResolver"));
    }

    /** "@RateLimited(window) on A.m()" for attribute window of this annotation. */
    public String where(String attribute) {
        return attribute(attribute, site);
    }

    /** "@RateLimited(window) on A.m()" for attribute window of the annotation at the site "@RateLimited on A.m()". */
    public static String attribute(String attribute, String site) {
        String annotation = "@RateLimited";
        return site.startsWith(annotation) ? annotation + "(" + attribute + ")" + site.substring(annotation.length())
                : annotation + "(" + attribute + ") " + site;
    }

    static Duration duration(String text, String where) {
        try {
            return duration(text.trim());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where, "\"" + text + "\"", "Not a duration",
                    "Write a duration such as \"10s\", \"500ms\", \"1h\" or \"PT10S\"");
        }
    }

    /**
     * A duration as Spring Boot binds one: ISO-8601 ("PT10S") or a number and a unit ("10s", "500ms", a
     * bare number being milliseconds). Spring's detection also takes composite durations ("1h30m"), which
     * properties do not: they are refused, so that an annotation takes the same text with and without
     * Spring Boot, and the same as a property.
     */
    private static Duration duration(String text) {
        DurationFormat.Style style = DurationFormatterUtils.detect(text);
        if (style == DurationFormat.Style.COMPOSITE) {
            throw new IllegalArgumentException("'" + text + "' is not a duration of the ISO-8601 or simple style");
        }
        return DurationFormatterUtils.parse(text, style);
    }
}
