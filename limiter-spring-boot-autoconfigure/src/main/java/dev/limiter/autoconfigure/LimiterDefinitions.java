package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterDefinition.property;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.limiter.autoconfigure.internal.DefinedLimiters;
import dev.limiter.ConcurrencyLimiter;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.internal.interceptor.LimiterPlans;
import dev.limiter.spring.internal.interceptor.LimiterResolver;
import dev.limiter.spring.internal.limits.RateLimitedValues;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;

import org.jspecify.annotations.Nullable;

/**
 * The limiters defined by configuration and annotations: registers each limiter (and each plan's) as its
 * first use defines it ({@link LimiterDefinition}, {@link PlanDefinitions}) and refuses a second use that
 * would define it otherwise, naming both. It keeps what the endpoint reads ({@link DefinedLimiters}) and
 * what a retune checks against ({@link RetuneChecks}).
 */
final class LimiterDefinitions implements LimiterResolver, DefinedLimiters {

    /** The properties in force: those bound at startup, then those of the last retune applied. */
    private volatile LimiterProperties properties;

    private final RateLimiterRegistry registry;

    /** Where each limiter was first defined, to name both sides of a conflict. */
    private final Map<String, String> origins = new ConcurrentHashMap<>();

    /** Where each value of each limiter came from, as the merge that registered it found: read by the endpoint. */
    private final Map<String, Map<String, String>> sources = new ConcurrentHashMap<>();

    /** The annotations that use each limiter, each at its site. */
    private final Map<String, List<RateLimitedValues>> uses = new ConcurrentHashMap<>();

    /** The limits of calls in flight, which an annotation may name instead of a rate limiter. */
    private final @Nullable ConcurrencyLimiters concurrencyLimiters;

    LimiterDefinitions(LimiterProperties properties, RateLimiterRegistry registry) {
        this(properties, registry, null);
    }

    LimiterDefinitions(LimiterProperties properties, RateLimiterRegistry registry, @Nullable ConcurrencyLimiters concurrencyLimiters) {
        this.properties = properties;
        this.registry = registry;
        this.concurrencyLimiters = concurrencyLimiters;
    }

    @Override
    public @Nullable ConcurrencyLimiter concurrencyLimiterFor(RateLimited annotation, String site) {
        return (concurrencyLimiters != null) ? concurrencyLimiters.find(annotation.name()).orElse(null) : null;
    }

    /** Registers the plans of limiter {@code name} as configuration alone defines them, with no annotation. */
    void registerPlans(String name, LimiterProperties.Limiter configured) {
        PlanDefinitions.register(name, configured, null, property(name, ""), new LinkedHashMap<>(),
                (plan, config) -> registerPlan(name, plan, config, property(name, "")));
    }

    /** Whether a limiter without plans is registered under {@code name}. */
    boolean isRegistered(String name) {
        return registry.find(name).isPresent();
    }

    @Override
    public RateLimiter limiterFor(RateLimited annotation, String site) {
        return limiterFor(annotation.name(), RateLimitedValues.asPropertiesBind(annotation, site), site);
    }

    @Override
    public boolean shadow(RateLimited annotation) {
        return shadow(annotation.name(), annotation);
    }

    @Override
    public LimiterPlans plans(RateLimited annotation, String site) {
        return plans(annotation.name(), RateLimitedValues.asPropertiesBind(annotation, site), site);
    }

    @Override
    public LimiterPlans plans(String name, String site) {
        return plans(name, null, site);
    }

    /**
     * The limiter named {@code name}, with the values of {@code annotation} (may be null) where
     * configuration does not set them.
     *
     * @param site where the limiter is used, for messages: "limiter.limiters.x" or "@RateLimited on A.m()"
     */
    RateLimiter limiterFor(String name, @Nullable RateLimitedValues annotation, String site) {
        if (annotation != null) {
            check(name, annotation);
            uses.computeIfAbsent(name, (n) -> new CopyOnWriteArrayList<>()).add(annotation);
        }
        LimiterDefinition definition = LimiterDefinition.merge(properties, name, annotation, site);
        RateLimiter limiter = register(name, definition.config(), site);
        sources.putIfAbsent(name, definition.sources());
        return limiter;
    }

    /**
     * The plans of limiter {@code name} (registering each plan's limiter), what picks the plan of a
     * call limited through {@code annotation} (may be null), and the keys never limited.
     *
     * @param site where the limiter is used, for messages: "limiter.limiters.x" or "@RateLimited on A.m()"
     */
    LimiterPlans plans(String name, @Nullable RateLimitedValues annotation, String site) {
        if (annotation != null) {
            check(name, annotation);
        }
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        PlanDefinitions.Picking picking = PlanDefinitions.picking(name, configured, annotation);
        if (configured == null || configured.getPlans().isEmpty()) {
            return PlanDefinitions.withoutPlans(name, picking);
        }
        if (annotation != null) {
            uses.computeIfAbsent(name, (n) -> new CopyOnWriteArrayList<>()).add(annotation);
        }
        Map<String, String> from = new LinkedHashMap<>();
        LimiterPlans plans = PlanDefinitions.plans(name, configured, annotation, site, picking, from,
                (plan, config) -> registerPlan(name, plan, config, site));
        sources.putIfAbsent(name, Collections.unmodifiableMap(from));
        return plans;
    }

    /**
     * Checks each value {@code annotation} sets on its own, whether or not {@code limiter.limiters.<name>}
     * replaces it; an error then names the property that replaces the attribute too.
     */
    private void check(String name, RateLimitedValues annotation) {
        try {
            annotation.check();
        }
        catch (LimiterConfigurationException ex) {
            String attribute = ex.getWhere().startsWith("@RateLimited(")
                    ? ex.getWhere().substring("@RateLimited(".length(), ex.getWhere().indexOf(')')) : null;
            String replacedBy = (attribute != null) ? replacingProperty(name, attribute) : null;
            if (replacedBy == null) {
                throw ex;
            }
            throw new LimiterConfigurationException(ex.getWhere(), ex.getValue(), ex.getProblem() + "; " + replacedBy
                    + " replaces it while set, but the annotation's own values must be valid", ex.getAction()
                            + ", or remove the attribute from the annotation and keep " + replacedBy);
        }
    }

    /** The property of limiter {@code name} that is set and replaces annotation attribute {@code attribute}; null for none. */
    private @Nullable String replacingProperty(String name, String attribute) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        if (configured == null) {
            return null;
        }
        String plans = !configured.getPlans().isEmpty() ? "plans" : null;
        String limits = !configured.getLimits().isEmpty() ? "limits" : plans;
        String replacing = switch (attribute) {
            case "limit" -> (configured.getLimit() != null) ? "limit" : limits;
            case "window" -> (configured.getWindow() != null) ? "window" : limits;
            case "burst" -> (configured.getBurst() != null) ? "burst" : limits;
            case "limits" -> (limits != null) ? limits : (configured.getLimit() != null) ? "limit"
                    : (configured.getWindow() != null) ? "window" : null;
            case "subWindows" -> (configured.getSubWindows() != null) ? "sub-windows" : null;
            case "maxWait" -> (configured.getMaxWait() != null) ? "max-wait" : null;
            case "plan", "planResolver" -> (configured.getPlan() != null) ? "plan" : (configured.getPlanResolver() != null) ? "plan-resolver" : null;
            default -> null;
        };
        return (replacing != null) ? property(name, replacing) : null;
    }

    private RateLimiter register(String name, RateLimiterConfig config, String site) {
        String origin = origins.putIfAbsent(name, site);
        try {
            return registry.register(name, config);
        }
        catch (IllegalStateException ex) {
            RateLimiter existing = registry.get(name);
            throw new LimiterConfigurationException(site, config,
                    "Limiter '" + name + "' is already defined as " + existing.config() + " by " + origin,
                    "Give every @RateLimited(name = \"" + name + "\") the same values, or set them once under limiter.limiters." + name);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(site, name, String.valueOf(ex.getMessage()), "Rename the limiter");
        }
    }

    private RateLimiter registerPlan(String name, String plan, RateLimiterConfig config, String site) {
        String origin = origins.putIfAbsent(name, site);
        try {
            return registry.register(name, plan, config);
        }
        catch (IllegalStateException ex) {
            throw new LimiterConfigurationException(site, config, ex.getMessage() + ((origin != null) ? " by " + origin : ""),
                    "Give every @RateLimited(name = \"" + name + "\") the same values, or set them once under limiter.limiters." + name);
        }
        catch (UnsupportedOperationException ex) {
            throw new LimiterConfigurationException(property(name, "plans"), plan, "The limiters' RateLimiterFactory cannot keep plans "
                    + "apart: " + ex.getMessage(), "Use Limiter's Redis or memory backend, or override RateLimiterFactory.create(String, "
                            + "String, RateLimiterConfig) in your factory");
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(site, name, String.valueOf(ex.getMessage()), "Rename the limiter");
        }
    }

    /** Registers limiter {@code name}, defined while the application runs. */
    RateLimiter register(String name, LimiterDefinition definition) {
        RateLimiter limiter = register(name, definition.config(), property(name, ""));
        sources.put(name, definition.sources());
        return limiter;
    }

    /** Makes {@code next} the properties in force, with the sources of the limiters it defines: after a retune. */
    void use(LimiterProperties next, Map<String, LimiterDefinition> definitions) {
        this.properties = next;
        definitions.forEach((name, definition) -> sources.put(name, definition.sources()));
    }

    /** The properties in force. */
    LimiterProperties properties() {
        return properties;
    }

    /** The names of the limiters defined so far, with or without plans. */
    Set<String> names() {
        return Collections.unmodifiableSet(origins.keySet());
    }

    /** The names of the limiters annotations use. */
    Set<String> usedNames() {
        return Collections.unmodifiableSet(uses.keySet());
    }

    /** The annotations that use limiter {@code name}, in the order they were found. */
    List<RateLimitedValues> uses(String name) {
        return uses.getOrDefault(name, List.of());
    }

    /**
     * Whether calls limited by {@code name} through {@code annotation} (may be null) only observe:
     * {@code limiter.limiters.<name>.shadow} when set, else the annotation's attribute.
     */
    boolean shadow(String name, @Nullable RateLimited annotation) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        if (configured != null && configured.getShadow() != null) {
            return configured.getShadow();
        }
        return annotation != null && annotation.shadow();
    }

    @Override
    public boolean shadow(String name) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        if (configured != null && configured.getShadow() != null) {
            return configured.getShadow();
        }
        return uses(name).stream().anyMatch((use) -> use.annotation().shadow());
    }

    @Override
    public Map<String, String> sources(String name) {
        Map<String, String> merged = sources.get(name);
        if (merged == null) {
            return Map.of();
        }
        Map<String, String> all = new LinkedHashMap<>(merged);
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        // Shadow mode is chosen per annotated method, so its source is the first that chooses it.
        all.put("shadow", (configured != null && configured.getShadow() != null) ? property(name, "shadow")
                : uses(name).stream().filter((use) -> use.annotation().shadow()).map(RateLimitedValues::site).findFirst()
                    .orElse("default"));
        return all;
    }

    @Override
    public List<String> sites(String name) {
        return uses(name).stream().map(RateLimitedValues::site).toList();
    }

    @Override
    public Set<String> unlimitedPlans(String name) {
        return PlanDefinitions.unlimitedPlans(properties.getLimiters().get(name));
    }

    @Override
    public @Nullable String defaultPlan(String name) {
        return PlanDefinitions.defaultPlan(properties.getLimiters().get(name));
    }

    @Override
    public int unlimitedKeyCount(String name) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        return (configured != null) ? new LinkedHashSet<>(configured.getUnlimitedKeys()).size() : 0;
    }
}
