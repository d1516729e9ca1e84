package dev.limiter.spring;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.internal.interceptor.LimiterPlans;
import dev.limiter.spring.internal.interceptor.LimiterResolver;
import dev.limiter.spring.internal.limits.RateLimitedValues;

import org.jspecify.annotations.Nullable;

/**
 * Finds the limiter of a {@code @RateLimited} method from the annotation's own values, for an
 * application without Spring Boot ({@link EnableRateLimiting}): nothing configures a limiter by name,
 * so every annotation naming it must give it the same values.
 */
final class AnnotationLimiterResolver implements LimiterResolver {

    private final RateLimiterRegistry registry;

    /** Where each limiter was first defined, for the message of a conflicting one. */
    private final Map<String, String> origins = new ConcurrentHashMap<>();

    /** The application's concurrency limiter beans, which a name may also name. */
    private final Supplier<List<ConcurrencyLimiter>> concurrencyLimiters;

    AnnotationLimiterResolver(RateLimiterRegistry registry) {
        this(registry, List::of);
    }

    AnnotationLimiterResolver(RateLimiterRegistry registry, Supplier<List<ConcurrencyLimiter>> concurrencyLimiters) {
        this.registry = registry;
        this.concurrencyLimiters = concurrencyLimiters;
    }

    /** The application's {@link ConcurrencyLimiter} bean of the annotation's name, if it has one. */
    @Override
    public @Nullable ConcurrencyLimiter concurrencyLimiterFor(RateLimited annotation, String site) {
        return concurrencyLimiters.get().stream().filter((limiter) -> limiter.name().equals(annotation.name())).findFirst().orElse(null);
    }

    @Override
    public RateLimiter limiterFor(RateLimited annotation, String site) {
        String name = annotation.name();
        RateLimiterConfig config = RateLimitedValues.config(annotation, site);
        String origin = origins.computeIfAbsent(name, (n) -> site);
        try {
            return registry.register(name, config);
        }
        catch (IllegalStateException ex) {
            RateLimiter existing = registry.get(name);
            throw new LimiterConfigurationException(site, config, "Limiter '" + name + "' is already defined as " + existing.config()
                    + " by " + origin, "Give every @RateLimited(name = \"" + name + "\") the same values");
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(site, name, String.valueOf(ex.getMessage()), "Rename the limiter");
        }
    }

    @Override
    public boolean shadow(RateLimited annotation) {
        return annotation.shadow();
    }

    /** Plans are configured properties (limiter.limiters.&lt;name&gt;.plans): an annotation alone has none to pick from. */
    @Override
    public LimiterPlans plans(RateLimited annotation, String site) {
        RateLimitedValues.check(annotation, site);
        String attribute = !annotation.plan().isBlank() ? "plan" : !annotation.planResolver().isBlank() ? "planResolver" : null;
        if (attribute != null) {
            String value = attribute.equals("plan") ? annotation.plan() : annotation.planResolver();
            String where = RateLimitedValues.attribute(attribute, site);
            throw new LimiterConfigurationException(where, "\"" + value + "\"", "Limiter '" + annotation.name()
                    + "' has no plans to pick from: plans are configured under limiter.limiters." + annotation.name()
                    + ".plans, which Spring Boot's auto-configuration reads", "Remove " + where + ", or use Limiter's Spring Boot starter");
        }
        return LimiterPlans.NONE;
    }
}
