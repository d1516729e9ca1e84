package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimited;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;

import org.springframework.boot.convert.DurationStyle;

/**
 * Resolves each limiter's effective definition, {@code limiter.limiters.<name>} over the annotation
 * attribute by attribute, validates it and registers the limiter. Every error names the property or
 * annotation attribute, the value and the fix.
 */
final class LimiterDefinitions {

    private final LimiterProperties properties;

    private final RateLimiterRegistry registry;

    /** Where each limiter was first defined, to name both sides of a conflict. */
    private final Map<String, String> origins = new ConcurrentHashMap<>();

    LimiterDefinitions(LimiterProperties properties, RateLimiterRegistry registry) {
        this.properties = properties;
        this.registry = registry;
    }

    /** Registers the limiters that configuration alone defines completely, so they fail fast too. */
    void registerConfigured() {
        properties.getLimiters().forEach((name, limiter) -> {
            if (isComplete(limiter)) {
                limiterFor(name, null, property(name, ""));
            }
        });
    }

    /**
     * Whether configuration sets every value an annotation could supply. Otherwise registering now
     * would fix the default algorithm and burst before an annotation of that name can provide its own.
     */
    private static boolean isComplete(LimiterProperties.Limiter limiter) {
        return limiter.getAlgorithm() != null && limiter.getLimit() != null && limiter.getWindow() != null
                && (limiter.getBurst() != null || limiter.getAlgorithm() == Algorithm.FIXED_WINDOW);
    }

    /**
     * Checks every configured limiter once all annotated beans are known: one that is neither
     * complete on its own nor completed by an annotation is an error (often a misspelt name).
     */
    void checkConfigured() {
        properties.getLimiters().keySet().forEach(name -> {
            if (registry.find(name).isEmpty()) {
                limiterFor(name, null, property(name, ""));
            }
        });
    }

    /**
     * The limiter named {@code name}, with the values of {@code annotation} (may be null) where
     * configuration does not set them.
     *
     * @param site where the limiter is used, for messages: "limiter.limiters.x" or "@RateLimited on A.m()"
     */
    RateLimiter limiterFor(String name, RateLimited annotation, String site) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        Algorithm algorithm = algorithm(configured, annotation);
        long limit = limit(name, configured, annotation, site);
        Duration window = window(name, configured, annotation, site);
        long burst = burst(name, algorithm, limit, configured, annotation, site);
        LimitSpec spec;
        try {
            spec = new LimitSpec(limit, window, burst);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(site, name, ex.getMessage(), "Choose a limit, window and burst within those bounds");
        }
        return register(name, algorithm, spec, site);
    }

    private RateLimiter register(String name, Algorithm algorithm, LimitSpec spec, String site) {
        String origin = origins.putIfAbsent(name, site);
        try {
            return registry.register(name, algorithm, spec);
        }
        catch (IllegalStateException ex) {
            RateLimiter existing = registry.get(name);
            throw new LimiterConfigurationException(site, algorithm + " " + spec,
                    "Limiter '" + name + "' is already defined as " + existing.algorithm() + " " + existing.spec() + " by " + origin,
                    "Give every @RateLimited(name = \"" + name + "\") the same values, or set them once under limiter.limiters." + name);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(site, name, ex.getMessage(), "Rename the limiter");
        }
    }

    private static Algorithm algorithm(LimiterProperties.Limiter configured, RateLimited annotation) {
        if (configured != null && configured.getAlgorithm() != null) {
            return configured.getAlgorithm();
        }
        return (annotation != null) ? annotation.algorithm() : Algorithm.TOKEN_BUCKET;
    }

    private static long limit(String name, LimiterProperties.Limiter configured, RateLimited annotation, String site) {
        if (configured != null && configured.getLimit() != null) {
            return positive(configured.getLimit(), property(name, "limit"), "permits per window");
        }
        if (annotation != null && annotation.limit() != 0) {
            return positive(annotation.limit(), attribute("limit", site), "permits per window");
        }
        throw new LimiterConfigurationException(property(name, "limit"), "(not set)",
                "Limiter '" + name + "' used by " + site + " has no limit",
                "Set limiter.limiters." + name + ".limit, or limit in the annotation");
    }

    private static Duration window(String name, LimiterProperties.Limiter configured, RateLimited annotation, String site) {
        Duration window;
        String where;
        if (configured != null && configured.getWindow() != null) {
            window = configured.getWindow();
            where = property(name, "window");
        }
        else if (annotation != null && !annotation.window().isBlank()) {
            where = attribute("window", site);
            try {
                window = DurationStyle.detectAndParse(annotation.window().trim());
            }
            catch (IllegalArgumentException ex) {
                throw new LimiterConfigurationException(where, "\"" + annotation.window() + "\"", "Not a duration",
                        "Write a duration such as \"10s\", \"500ms\", \"1h\" or \"PT10S\"");
            }
        }
        else {
            throw new LimiterConfigurationException(property(name, "window"), "(not set)",
                    "Limiter '" + name + "' used by " + site + " has no window",
                    "Set limiter.limiters." + name + ".window (for example 10s), or window in the annotation");
        }
        if (window.isNegative() || window.isZero() || window.compareTo(LimitSpec.MAX_WINDOW) > 0) {
            throw new LimiterConfigurationException(where, window, "The window must be positive and at most " + LimitSpec.MAX_WINDOW.toDays() + " days",
                    "Set a window such as 1s, 10s or 1h");
        }
        return window;
    }

    private static long burst(String name, Algorithm algorithm, long limit, LimiterProperties.Limiter configured, RateLimited annotation,
            String site) {
        Long burst = null;
        String where = null;
        if (configured != null && configured.getBurst() != null) {
            burst = positive(configured.getBurst(), property(name, "burst"), "bucket capacity");
            where = property(name, "burst");
        }
        else if (annotation != null && annotation.burst() != 0) {
            burst = positive(annotation.burst(), attribute("burst", site), "bucket capacity");
            where = attribute("burst", site);
        }
        if (burst == null) {
            return limit;
        }
        if (algorithm == Algorithm.FIXED_WINDOW && burst != limit) {
            throw new LimiterConfigurationException(where, burst, "A burst applies only to bucket algorithms, not to " + algorithm,
                    "Remove the burst, or choose algorithm token-bucket");
        }
        return burst;
    }

    private static long positive(long value, String where, String what) {
        if (value < 1 || value > LimitSpec.MAX_LIMIT) {
            throw new LimiterConfigurationException(where, value, "The " + what + " must be between 1 and " + LimitSpec.MAX_LIMIT,
                    "Set a whole number of at least 1");
        }
        return value;
    }

    /** "@RateLimited(window) on A.m()" from the site "@RateLimited on A.m()". */
    private static String attribute(String attribute, String site) {
        String annotation = "@RateLimited";
        return site.startsWith(annotation) ? annotation + "(" + attribute + ")" + site.substring(annotation.length())
                : annotation + "(" + attribute + ") " + site;
    }

    private static String property(String name, String attribute) {
        return "limiter.limiters." + name + (attribute.isEmpty() ? "" : "." + attribute);
    }
}
