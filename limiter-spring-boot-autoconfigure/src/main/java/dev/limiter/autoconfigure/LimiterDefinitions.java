package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.RetunePolicy;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.internal.interceptor.LimiterPlans;
import dev.limiter.spring.internal.interceptor.LimiterPlans.Setting;
import dev.limiter.spring.internal.interceptor.LimiterResolver;
import dev.limiter.spring.RateLimited;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Resolves each limiter's effective configuration, {@code limiter.limiters.<name>} over the
 * annotation attribute by attribute, validates it and registers the limiter. Every error names the
 * property or annotation attribute, the value and the fix. Public for the actuator endpoint, which shows
 * where each value comes from; not meant for applications.
 */
public final class LimiterDefinitions implements LimiterResolver {

    private static final Log logger = LogFactory.getLog(LimiterDefinitions.class);

    /** Checks the syntax of plan expressions in properties, whichever method uses them. */
    private static final SpelExpressionParser PLAN_PARSER = new SpelExpressionParser();

    /** The properties in force: those bound at startup, then those of the last retune applied. */
    private volatile LimiterProperties properties;

    private final RateLimiterRegistry registry;

    /** Where each limiter was first defined, to name both sides of a conflict. */
    private final Map<String, String> origins = new ConcurrentHashMap<>();

    /** Where each value of each limiter came from, as the merge that registered it found: read by the endpoint. */
    private final Map<String, Map<String, String>> sources = new ConcurrentHashMap<>();

    /** The annotations that use each limiter, and where. */
    private final Map<String, List<Use>> uses = new ConcurrentHashMap<>();

    /** An annotation using a limiter, at a site such as "@RateLimited on A.m()". */
    record Use(RateLimited annotation, String site) {
    }

    LimiterDefinitions(LimiterProperties properties, RateLimiterRegistry registry) {
        this.properties = properties;
        this.registry = registry;
    }

    /** Registers the limiters (and plans) that configuration alone defines completely, so they fail fast too. */
    void registerConfigured() {
        properties.getLimiters().forEach((name, limiter) -> {
            if (isComplete(limiter)) {
                if (limiter.getPlans().isEmpty()) {
                    limiterFor(name, null, property(name, ""));
                }
                else {
                    registerPlans(name, limiter, null, property(name, ""), new LinkedHashMap<>());
                }
            }
        });
    }

    /**
     * Whether configuration sets every value an annotation could supply. Otherwise registering now
     * would fix defaults (algorithm, burst, sub-windows, max-wait) before an annotation of that name
     * can provide its own.
     */
    private static boolean isComplete(LimiterProperties.Limiter limiter) {
        Algorithm algorithm = limiter.getAlgorithm();
        if (algorithm == null) {
            return false;
        }
        List<LimiterProperties.Limit> own = limiter.getPlans().isEmpty() ? List.of(limiter)
                : limiter.getPlans().values().stream().filter((plan) -> plan == null || !plan.isUnlimited())
                    .map(LimiterProperties.Limit.class::cast).toList();
        boolean limits = own.stream().allMatch(LimiterDefinitions::hasLimits);
        boolean bursts = own.stream().allMatch(LimiterDefinitions::hasBursts);
        boolean bucketOptions = !algorithm.isBucket() || (bursts && limiter.getMaxWait() != null);
        boolean slidingOptions = algorithm != Algorithm.SLIDING_WINDOW || limiter.getSubWindows() != null;
        return limits && bucketOptions && slidingOptions;
    }

    private static boolean hasLimits(LimiterProperties.Limit limit) {
        if (limit == null) {
            return false;
        }
        List<LimiterProperties.Limit> several = several(limit);
        return !several.isEmpty() || (limit.getLimit() != null && limit.getWindow() != null);
    }

    private static boolean hasBursts(LimiterProperties.Limit limit) {
        List<LimiterProperties.Limit> several = several(limit);
        return several.isEmpty() ? limit.getBurst() != null : several.stream().allMatch((each) -> each.getBurst() != null);
    }

    /** The several limits of a limiter or plan; empty when it has one limit. */
    private static List<LimiterProperties.Limit> several(LimiterProperties.Limit limit) {
        if (limit instanceof LimiterProperties.Limiter limiter) {
            return limiter.getLimits();
        }
        return (limit instanceof LimiterProperties.Plan plan) ? plan.getLimits() : List.of();
    }

    /**
     * Checks every configured limiter once all annotated beans are known: one that is neither
     * complete on its own nor completed by an annotation is an error (often a misspelt name), and so
     * are plans that nothing can pick from. One that no annotation or rule uses is reported, with the
     * used name closest to it: code may still get it from the registry, so it is no error.
     */
    void checkConfigured() {
        Set<String> used = new TreeSet<>(uses.keySet());
        properties.getRules().stream().map(LimiterProperties.Rule::getLimiter).filter(Objects::nonNull).map(String::trim).forEach(used::add);
        properties.getLimiters().forEach((name, limiter) -> {
            String closest = used.contains(name) ? null : Misspelling.closest(name, used);
            try {
                if (!uses.containsKey(name)) {
                    plans(name, null, property(name, ""));
                }
                if (limiter.getPlans().isEmpty() && registry.find(name).isEmpty()) {
                    limiterFor(name, null, property(name, ""));
                }
            }
            catch (LimiterConfigurationException ex) {
                if (closest == null) {
                    throw ex;
                }
                throw new LimiterConfigurationException(ex.getWhere(), ex.getValue(), ex.getProblem() + "; no @RateLimited method or "
                        + "limiter.rules entry uses limiter '" + name + "': did you mean '" + closest + "'?", "Rename "
                                + property(name, "") + " to " + property(closest, "") + " if that is the limiter meant, else: "
                                + ex.getAction());
            }
            if (!used.contains(name)) {
                reportUnused(name, closest, used);
            }
        });
    }

    private void reportUnused(String name, @Nullable String closest, Set<String> used) {
        String unused = property(name, "") + " configures a limiter that no @RateLimited method and no limiter.rules entry uses";
        if (closest != null) {
            logger.warn(unused + "; did you mean '" + closest + "' (used by " + String.join(", ", usedBy(closest)) + ")? Rename "
                    + property(name, "") + " to " + property(closest, "") + " if so; ignore this if code gets '" + name
                    + "' from the RateLimiterRegistry");
        }
        else if (logger.isInfoEnabled()) {
            logger.info(unused + ": only code that gets it from the RateLimiterRegistry uses it"
                    + (used.isEmpty() ? "" : " (the limiters used are " + used + ")"));
        }
    }

    /** The sites of the annotations, then the rules, that use limiter {@code name}. */
    private List<String> usedBy(String name) {
        List<String> sites = new ArrayList<>(sites(name));
        List<LimiterProperties.Rule> rules = properties.getRules();
        for (int i = 0; i < rules.size(); i++) {
            if (rules.get(i).getLimiter() != null && name.equals(rules.get(i).getLimiter().trim())) {
                sites.add("limiter.rules[" + i + "]");
            }
        }
        return sites;
    }

    /**
     * The limiter named {@code name}, with the values of {@code annotation} (may be null) where
     * configuration does not set them.
     *
     * @param site where the limiter is used, for messages: "limiter.limiters.x" or "@RateLimited on A.m()"
     */
    RateLimiter limiterFor(String name, @Nullable RateLimited annotation, String site) {
        if (annotation != null) {
            checkAnnotation(name, annotation, site);
            uses.computeIfAbsent(name, (n) -> new CopyOnWriteArrayList<>()).add(new Use(annotation, site));
        }
        Definition definition = define(properties, name, annotation, site);
        RateLimiter limiter = register(name, definition.config(), site);
        sources.putIfAbsent(name, definition.sources());
        return limiter;
    }

    /**
     * Checks each value {@code annotation} sets on its own, whether or not {@code limiter.limiters.<name>}
     * replaces it: a value that cannot work is a mistake in the code, which would otherwise surface only
     * once the property is removed. Attributes left at their defaults (0, "") are not set, so
     * configuration may supply them and nothing is checked.
     */
    private void checkAnnotation(String name, RateLimited annotation, String site) {
        try {
            checkAnnotation(annotation, site);
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

    private static void checkAnnotation(RateLimited annotation, String site) {
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
            annotatedLimits(annotation.algorithm(), annotation, site);
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

    /** A limiter's effective configuration, and where each of its values came from. */
    record Definition(RateLimiterConfig config, Map<String, String> sources) {
    }

    /**
     * The configuration of limiter {@code name} by {@code properties} over {@code annotation} (may be
     * null), validated as at startup.
     */
    private static Definition define(LimiterProperties properties, String name, @Nullable RateLimited annotation, String site) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        // One pass over the values, each taken from the property, else the annotation, else the default, and
        // noted with where it came from.
        Map<String, String> from = new LinkedHashMap<>();
        Algorithm algorithm = algorithm(name, configured, annotation, site, from);
        List<LimitSpec> limits = limits(name, algorithm, configured, annotation, site, from);
        int subWindows = subWindows(name, configured, annotation, site, from);
        Duration maxWait = maxWait(name, configured, annotation, site, from);
        FailurePolicy onRedisFailure = (configured != null) ? configured.getOnRedisFailure() : null;
        from.put("on-redis-failure", (onRedisFailure != null) ? property(name, "on-redis-failure") : "limiter.on-redis-failure");
        RetunePolicy onRetune = (configured != null && configured.getOnRetune() != null) ? configured.getOnRetune() : RetunePolicy.RESET;
        from.put("on-retune", (configured != null && configured.getOnRetune() != null) ? property(name, "on-retune") : "default");
        RateLimiterConfig.Lease lease = lease(name, algorithm, configured, from);
        try {
            return new Definition(new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease),
                    Collections.unmodifiableMap(from));
        }
        catch (IllegalArgumentException ex) {
            String where = (configured != null && !configured.getLimits().isEmpty()) ? property(name, "limits") : site;
            throw new LimiterConfigurationException(where, algorithm + " " + limits, "Limiter '" + name + "': " + ex.getMessage(),
                    "Correct the limits of limiter '" + name + "'");
        }
    }

    /**
     * The definition of every limiter by {@code next}, properties bound anew, validated as at startup
     * with the annotations that use each limiter: the limiters defined so far, and those {@code next}
     * configures. Registers nothing and changes nothing.
     *
     * @throws LimiterConfigurationException (or Boot's binding exceptions) for the first value that
     *     would have stopped startup
     */
    Map<String, Definition> define(LimiterProperties next) {
        Set<String> names = new LinkedHashSet<>(origins.keySet());
        names.addAll(next.getLimiters().keySet());
        Map<String, Definition> definitions = new LinkedHashMap<>();
        for (String name : names) {
            if (hasPlans(properties, name) || hasPlans(next, name)) {
                // Plans are fixed at startup: LimiterRetuner refuses any change to them.
                continue;
            }
            List<Use> used = uses.getOrDefault(name, List.of());
            if (used.isEmpty()) {
                definitions.put(name, define(next, name, null, property(name, "")));
                continue;
            }
            Definition first = null;
            for (Use use : used) {
                Definition definition = define(next, name, use.annotation(), use.site());
                if (first == null) {
                    first = definition;
                }
                else if (!first.config().equals(definition.config())) {
                    throw new LimiterConfigurationException(use.site(), definition.config(),
                            "Limiter '" + name + "' would be defined as " + first.config() + " by " + used.get(0).site(),
                            "Give every @RateLimited(name = \"" + name + "\") the same values, or set them once under limiter.limiters." + name);
                }
            }
            definitions.put(name, first);
        }
        return definitions;
    }

    private static boolean hasPlans(LimiterProperties properties, String name) {
        LimiterProperties.Limiter limiter = properties.getLimiters().get(name);
        return limiter != null && !limiter.getPlans().isEmpty();
    }

    /** Registers limiter {@code name}, configured while the application runs. */
    RateLimiter register(String name, Definition definition) {
        RateLimiter limiter = register(name, definition.config(), property(name, ""));
        sources.put(name, definition.sources());
        return limiter;
    }

    /**
     * Refuses a change of shadow mode by {@code next}: each method chose it at startup, and how its calls
     * are counted with it.
     */
    void checkShadow(LimiterProperties next) {
        Set<String> names = new LinkedHashSet<>(properties.getLimiters().keySet());
        names.addAll(next.getLimiters().keySet());
        for (String name : names) {
            LimiterProperties.Limiter now = properties.getLimiters().get(name);
            LimiterProperties.Limiter then = next.getLimiters().get(name);
            Boolean was = (now != null) ? now.getShadow() : null;
            Boolean will = (then != null) ? then.getShadow() : null;
            List<Use> used = uses.getOrDefault(name, List.of());
            boolean changes = used.isEmpty() ? !Objects.equals(was, will)
                    : used.stream().anyMatch((use) -> ((was != null) ? was : use.annotation().shadow()) != ((will != null) ? will
                            : use.annotation().shadow()));
            if (changes) {
                throw new LimiterConfigurationException(property(name, "shadow"), will,
                        "Shadow mode is chosen per method at startup and cannot change while the application runs",
                        "Restart the application to apply it, or " + ((was != null) ? "set it back to " + was : "remove it"));
            }
        }
    }

    /** Makes {@code next} the properties in force, with the sources of the limiters it defines: after a retune. */
    void use(LimiterProperties next, Map<String, Definition> definitions) {
        this.properties = next;
        definitions.forEach((name, definition) -> sources.put(name, definition.sources()));
    }

    /** The properties in force. */
    LimiterProperties properties() {
        return properties;
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
    public RateLimiter limiterFor(RateLimited annotation, String site) {
        return limiterFor(annotation.name(), annotation, site);
    }

    @Override
    public boolean shadow(RateLimited annotation) {
        return shadow(annotation.name(), annotation);
    }

    @Override
    public LimiterPlans plans(RateLimited annotation, String site) {
        return plans(annotation.name(), annotation, site);
    }

    /**
     * The plans of limiter {@code name} (registering each plan's limiter), what picks the plan of a
     * call limited through {@code annotation} (may be null), and the keys never limited.
     *
     * @param site where the limiter is used, for messages: "limiter.limiters.x" or "@RateLimited on A.m()"
     */
    LimiterPlans plans(String name, @Nullable RateLimited annotation, String site) {
        if (annotation != null) {
            checkAnnotation(name, annotation, site);
        }
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        Setting expression = planExpression(name, configured, annotation, site);
        Setting resolver = (expression == null) ? planResolver(name, configured, annotation, site) : null;
        String defaultPlan = defaultPlan(name);
        Set<String> unlimitedKeys = unlimitedKeys(name, configured);
        if (configured == null || configured.getPlans().isEmpty()) {
            Setting picker = (expression != null) ? expression : resolver;
            if (picker != null) {
                throw new LimiterConfigurationException(picker.where(), "\"" + picker.value() + "\"", "Limiter '" + name
                        + "' has no plans to pick from", "Define its plans under limiter.limiters." + name + ".plans, or remove "
                                + picker.where());
            }
            if (defaultPlan != null) {
                throw new LimiterConfigurationException(property(name, "default-plan"), defaultPlan, "Limiter '" + name + "' has no plans",
                        "Define its plans under limiter.limiters." + name + ".plans, or remove " + property(name, "default-plan"));
            }
            return unlimitedKeys.isEmpty() ? LimiterPlans.NONE : new LimiterPlans(Map.of(), Set.of(), null, null, null, unlimitedKeys);
        }
        if (annotation != null) {
            uses.computeIfAbsent(name, (n) -> new CopyOnWriteArrayList<>()).add(new Use(annotation, site));
        }
        Map<String, String> from = new LinkedHashMap<>();
        Plans plans = registerPlans(name, configured, annotation, site, from);
        Set<String> all = new TreeSet<>(plans.limited().keySet());
        all.addAll(plans.unlimited());
        if (defaultPlan != null && !all.contains(defaultPlan)) {
            throw new LimiterConfigurationException(property(name, "default-plan"), defaultPlan, "Limiter '" + name + "' has no plan '"
                    + defaultPlan + "'; its plans are " + all, "Set " + property(name, "default-plan") + " to one of them");
        }
        if (expression == null && resolver == null && defaultPlan == null) {
            throw new LimiterConfigurationException(property(name, "plan"), "(not set)", "Limiter '" + name + "'" + ((annotation != null)
                    ? " used by " + site : "") + " has plans " + all + ", but nothing picks the plan of a call",
                    "Set " + property(name, "plan") + " to an expression such as #request.getHeader('X-Plan'), "
                            + property(name, "plan-resolver") + " to a PlanResolver bean, or " + property(name, "default-plan")
                            + " to one of the plans");
        }
        Setting picker = (expression != null) ? expression : resolver;
        from.put("plan", (picker != null) ? picker.where() : "default");
        from.put("default-plan", (defaultPlan != null) ? property(name, "default-plan") : "default");
        sources.putIfAbsent(name, Collections.unmodifiableMap(from));
        return new LimiterPlans(plans.limited(), plans.unlimited(), expression, resolver, defaultPlan, unlimitedKeys);
    }

    /** The limiters of the plans with limits, by plan, and the unlimited plans. */
    private record Plans(Map<String, RateLimiter> limited, Set<String> unlimited) {
    }

    /**
     * Registers the limiter of each plan of limiter {@code name} that has limits: the plan's limits,
     * with the limiter's algorithm and options (configured, else the annotation's, else the defaults).
     */
    private Plans registerPlans(String name, LimiterProperties.Limiter configured, @Nullable RateLimited annotation, String site,
            Map<String, String> from) {
        checkNoOwnLimits(name, configured);
        Algorithm algorithm = algorithm(name, configured, annotation, site, from);
        int subWindows = subWindows(name, configured, annotation, site, from);
        Duration maxWait = maxWait(name, configured, annotation, site, from);
        FailurePolicy onRedisFailure = configured.getOnRedisFailure();
        from.put("on-redis-failure", (onRedisFailure != null) ? property(name, "on-redis-failure") : "limiter.on-redis-failure");
        RateLimiterConfig.Lease lease = lease(name, algorithm, configured, from);
        from.put("plans", property(name, "plans"));
        Map<String, RateLimiter> limited = new LinkedHashMap<>();
        Set<String> unlimited = new TreeSet<>();
        configured.getPlans().forEach((plan, planned) -> {
            String where = property(name, "plans." + plan);
            try {
                RateLimiterFactory.checkPlan(plan);
            }
            catch (IllegalArgumentException ex) {
                throw new LimiterConfigurationException(property(name, "plans"), plan, String.valueOf(ex.getMessage()), "Rename the plan");
            }
            if (planned == null) {
                throw new LimiterConfigurationException(where, "(empty)", "Plan '" + plan + "' of limiter '" + name + "' has no limits",
                        "Set " + where + ".limit and " + where + ".window, or " + where + ".limits, or " + where + ".unlimited=true");
            }
            if (planned.isUnlimited()) {
                if (planned.getLimit() != null || planned.getWindow() != null || planned.getBurst() != null || !planned.getLimits().isEmpty()) {
                    throw new LimiterConfigurationException(where + ".unlimited", true, "Plan '" + plan + "' of limiter '" + name
                            + "' is unlimited, yet it has limits", "Remove the limits of " + where + ", or its unlimited");
                }
                unlimited.add(plan);
                return;
            }
            List<LimitSpec> limits = planLimits(name, plan, algorithm, planned);
            RateLimiterConfig config;
            try {
                config = new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, RetunePolicy.RESET, lease);
            }
            catch (IllegalArgumentException ex) {
                throw new LimiterConfigurationException(planned.getLimits().isEmpty() ? where : where + ".limits", algorithm + " " + limits,
                        "Plan '" + plan + "' of limiter '" + name + "': " + ex.getMessage(), "Correct the limits of plan '" + plan + "'");
            }
            limited.put(plan, registerPlan(name, plan, config, site));
        });
        if (limited.isEmpty()) {
            throw new LimiterConfigurationException(property(name, "plans"), unlimited, "Every plan of limiter '" + name
                    + "' is unlimited, so it limits no call", "Give a plan limits, or remove limiter.limiters." + name + ".plans");
        }
        return new Plans(limited, unlimited);
    }

    /** A limiter with plans has no limits of its own: they would apply to no call. */
    private static void checkNoOwnLimits(String name, LimiterProperties.Limiter configured) {
        Map<String, Object> own = new LinkedHashMap<>();
        own.put("limit", configured.getLimit());
        own.put("window", configured.getWindow());
        own.put("burst", configured.getBurst());
        own.put("limits", configured.getLimits().isEmpty() ? null : configured.getLimits().size() + " limits");
        own.forEach((attribute, value) -> {
            if (value != null) {
                throw new LimiterConfigurationException(property(name, attribute), value, "Limiter '" + name + "' has plans, each with "
                        + "limits of its own, so its own " + attribute + " would apply to no call", "Move it into each plan, under "
                                + property(name, "plans.<plan>." + attribute) + ", or remove " + property(name, "plans"));
            }
        });
    }

    /** The limits of plan {@code plan}, in the shapes a limiter takes them: limit, window and burst, or limits. */
    private static List<LimitSpec> planLimits(String name, String plan, Algorithm algorithm, LimiterProperties.Plan planned) {
        String where = property(name, "plans." + plan);
        boolean single = planned.getLimit() != null || planned.getWindow() != null || planned.getBurst() != null;
        if (!planned.getLimits().isEmpty()) {
            if (single) {
                Set<String> set = new LinkedHashSet<>();
                set.add(where + ".limits");
                if (planned.getLimit() != null) {
                    set.add(where + ".limit");
                }
                if (planned.getWindow() != null) {
                    set.add(where + ".window");
                }
                if (planned.getBurst() != null) {
                    set.add(where + ".burst");
                }
                throw new MutuallyExclusiveConfigurationPropertiesException(set,
                        List.of(where + ".limits", where + ".limit", where + ".window", where + ".burst"));
            }
            return configuredLimits(where, algorithm, planned.getLimits());
        }
        if (planned.getLimit() == null && planned.getWindow() == null) {
            throw new LimiterConfigurationException(where, "(no limits)", "Plan '" + plan + "' of limiter '" + name + "' has no limits",
                    "Set " + where + ".limit and " + where + ".window, or " + where + ".limits, or " + where + ".unlimited=true");
        }
        if (planned.getLimit() == null || planned.getWindow() == null) {
            String missing = (planned.getLimit() == null) ? "limit" : "window";
            throw new LimiterConfigurationException(where + "." + missing, "(not set)", "Plan '" + plan + "' of limiter '" + name
                    + "' has no " + missing, "Set " + where + "." + missing);
        }
        long limit = positive(planned.getLimit(), where + ".limit", "permits per window");
        Duration window = checkWindow(planned.getWindow(), where + ".window");
        long burst = limit;
        if (planned.getBurst() != null) {
            burst = positive(planned.getBurst(), where + ".burst", "bucket capacity");
            checkBurst(algorithm, limit, burst, where + ".burst");
        }
        return List.of(spec(limit, window, burst, where));
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

    /** The plan expression: limiter.limiters.x.plan, else the annotation's (unless the property names a plan resolver). */
    private static @Nullable Setting planExpression(String name, LimiterProperties.@Nullable Limiter configured,
            @Nullable RateLimited annotation, String site) {
        String text = (configured != null) ? configured.getPlan() : null;
        String resolver = (configured != null) ? configured.getPlanResolver() : null;
        if (text != null && !text.isBlank()) {
            if (resolver != null && !resolver.isBlank()) {
                throw new LimiterConfigurationException(property(name, "plan-resolver"), resolver, "Limiter '" + name + "' sets both a plan "
                        + "expression (" + property(name, "plan") + ") and a plan resolver", "Set either plan or plan-resolver, not both");
            }
            try {
                PLAN_PARSER.parseExpression(text);
            }
            catch (ParseException ex) {
                throw new LimiterConfigurationException(property(name, "plan"), "\"" + text + "\"", "Not a valid SpEL expression: "
                        + ex.getSimpleMessage(), "Write an expression picking one of the plans, such as #request.getHeader('X-Plan')");
            }
            return new Setting(text.trim(), property(name, "plan"));
        }
        if (resolver != null && !resolver.isBlank() || annotation == null) {
            return null;
        }
        if (!annotation.plan().isBlank() && !annotation.planResolver().isBlank()) {
            throw new LimiterConfigurationException(attribute("planResolver", site), "\"" + annotation.planResolver() + "\"",
                    "The annotation sets both a plan expression and a plan resolver", "Give either plan or planResolver, not both");
        }
        return annotation.plan().isBlank() ? null : new Setting(annotation.plan().trim(), attribute("plan", site));
    }

    /** The plan resolver bean: limiter.limiters.x.plan-resolver, else the annotation's (when no property picks the plan). */
    private static @Nullable Setting planResolver(String name, LimiterProperties.@Nullable Limiter configured,
            @Nullable RateLimited annotation, String site) {
        String resolver = (configured != null) ? configured.getPlanResolver() : null;
        if (resolver != null && !resolver.isBlank()) {
            return new Setting(resolver.trim(), property(name, "plan-resolver"));
        }
        boolean configuredPlan = configured != null && configured.getPlan() != null && !configured.getPlan().isBlank();
        return (annotation == null || configuredPlan || annotation.planResolver().isBlank()) ? null
                : new Setting(annotation.planResolver().trim(), attribute("planResolver", site));
    }

    private static Set<String> unlimitedKeys(String name, LimiterProperties.@Nullable Limiter configured) {
        if (configured == null) {
            return Set.of();
        }
        Set<String> keys = new LinkedHashSet<>();
        List<String> listed = configured.getUnlimitedKeys();
        for (int i = 0; i < listed.size(); i++) {
            String key = listed.get(i);
            if (key == null || key.isEmpty()) {
                throw new LimiterConfigurationException(property(name, "unlimited-keys[" + i + "]"), "\"\"", "An unlimited key must not be "
                        + "empty: the empty key is that of every call when the key is missing or not given", "Remove it");
            }
            keys.add(key);
        }
        return keys;
    }

    /** The plans of limiter {@code name} that are unlimited, in order; empty for none. */
    public Set<String> unlimitedPlans(String name) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        if (configured == null) {
            return Set.of();
        }
        Set<String> unlimited = new TreeSet<>();
        configured.getPlans().forEach((plan, planned) -> {
            if (planned != null && planned.isUnlimited()) {
                unlimited.add(plan);
            }
        });
        return unlimited;
    }

    /** The default plan of limiter {@code name}; null for none. */
    public @Nullable String defaultPlan(String name) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        return (configured != null && configured.getDefaultPlan() != null && !configured.getDefaultPlan().isBlank())
                ? configured.getDefaultPlan().trim() : null;
    }

    /** How many keys of limiter {@code name} are never limited (the keys are not shown: they may be secrets). */
    public int unlimitedKeyCount(String name) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        return (configured != null) ? new LinkedHashSet<>(configured.getUnlimitedKeys()).size() : 0;
    }

    /** Where each site that uses limiter {@code name} declares it, in the order they were found. */
    public List<String> sites(String name) {
        return uses.getOrDefault(name, List.of()).stream().map(Use::site).toList();
    }

    /**
     * Where each value of limiter {@code name} comes from, by attribute (algorithm, limit, window,
     * burst or limits, sub-windows, max-wait, on-redis-failure, shadow): the property that sets it,
     * the annotation that does, or "default"; as found when the limiter was defined. Empty for a
     * limiter that the application registered itself.
     */
    public Map<String, String> sources(String name) {
        Map<String, String> merged = sources.get(name);
        if (merged == null) {
            return Map.of();
        }
        Map<String, String> all = new LinkedHashMap<>(merged);
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        // Shadow mode is chosen per annotated method, so its source is the first that chooses it.
        all.put("shadow", (configured != null && configured.getShadow() != null) ? property(name, "shadow")
                : uses.getOrDefault(name, List.of()).stream().filter((use) -> use.annotation().shadow()).map(Use::site).findFirst()
                    .orElse("default"));
        return all;
    }

    /** Whether limiter {@code name} is in shadow mode: by configuration, else for any annotation that says so. */
    public boolean shadow(String name) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        if (configured != null && configured.getShadow() != null) {
            return configured.getShadow();
        }
        return uses.getOrDefault(name, List.of()).stream().anyMatch((use) -> use.annotation().shadow());
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

    private static Algorithm algorithm(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimited annotation,
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
            @Nullable RateLimited annotation, String site, Map<String, String> from) {
        boolean configuredSingle = configured != null
                && (configured.getLimit() != null || configured.getWindow() != null || configured.getBurst() != null);
        if (configured != null && !configured.getLimits().isEmpty()) {
            if (configuredSingle) {
                // Boot's own exception: its failure analysis lists the properties and where each is set.
                Set<String> set = new LinkedHashSet<>();
                set.add(property(name, "limits"));
                if (configured.getLimit() != null) {
                    set.add(property(name, "limit"));
                }
                if (configured.getWindow() != null) {
                    set.add(property(name, "window"));
                }
                if (configured.getBurst() != null) {
                    set.add(property(name, "burst"));
                }
                throw new MutuallyExclusiveConfigurationPropertiesException(set,
                        List.of(property(name, "limits"), property(name, "limit"), property(name, "window"), property(name, "burst")));
            }
            from.put("limits", property(name, "limits"));
            return configuredLimits(property(name, ""), algorithm, configured.getLimits());
        }
        boolean annotatedSingle = annotation != null && (annotation.limit() != 0 || !annotation.window().isBlank());
        if (annotation != null && annotation.limits().length > 0) {
            if (annotatedSingle) {
                throw new LimiterConfigurationException(attribute("limits", site), String.join(", ", annotation.limits()),
                        "The annotation sets both limits and limit/window", "Keep either limits or limit and window");
            }
            if (!configuredSingle) {
                from.put("limits", site);
                return annotatedLimits(algorithm, annotation, site);
            }
        }
        long limit = limit(name, configured, annotation, site, from);
        Duration window = window(name, configured, annotation, site, from);
        long burst = burst(name, algorithm, limit, configured, annotation, site, from);
        return List.of(spec(limit, window, burst, site));
    }

    /** @param base the property holding the limits, such as limiter.limiters.api or limiter.limiters.api.plans.pro */
    private static List<LimitSpec> configuredLimits(String base, Algorithm algorithm, List<LimiterProperties.Limit> configured) {
        List<LimitSpec> limits = new ArrayList<>();
        for (int i = 0; i < configured.size(); i++) {
            LimiterProperties.Limit limit = configured.get(i);
            String where = base + ".limits[" + i + "]";
            if (limit.getLimit() == null || limit.getWindow() == null) {
                throw new LimiterConfigurationException(where, (limit.getLimit() == null ? "no limit" : "no window"),
                        "Each of several limits needs a limit and a window", "Set " + where + ".limit and " + where + ".window");
            }
            long permits = positive(limit.getLimit(), where + ".limit", "permits per window");
            checkWindow(limit.getWindow(), where + ".window");
            long burst = permits;
            if (limit.getBurst() != null) {
                burst = positive(limit.getBurst(), where + ".burst", "bucket capacity");
                checkBurst(algorithm, permits, burst, where + ".burst");
            }
            limits.add(spec(permits, limit.getWindow(), burst, where));
        }
        return limits;
    }

    private static List<LimitSpec> annotatedLimits(Algorithm algorithm, RateLimited annotation, String site) {
        String where = attribute("limits", site);
        List<LimitSpec> limits = new ArrayList<>();
        for (String text : annotation.limits()) {
            int slash = text.indexOf('/');
            long permits;
            Duration window;
            try {
                permits = Long.parseLong(text.substring(0, Math.max(slash, 0)).trim());
                window = DurationStyle.detectAndParse(text.substring(slash + 1).trim());
            }
            catch (RuntimeException ex) {
                throw new LimiterConfigurationException(where, "\"" + text + "\"", "Not a limit", "Write each limit as \"<limit>/<window>\", "
                        + "such as \"10/1s\" or \"1000/1h\"");
            }
            positive(permits, where, "permits per window");
            checkWindow(window, where);
            long burst = permits;
            if (annotation.burst() != 0) {
                throw new LimiterConfigurationException(attribute("burst", site), annotation.burst(),
                        "A burst cannot apply to several limits at once", "Set a burst per limit under limiter.limiters.<name>.limits");
            }
            limits.add(spec(permits, window, burst, where));
        }
        return limits;
    }

    private static LimitSpec spec(long limit, Duration window, long burst, String where) {
        try {
            return new LimitSpec(limit, window, burst);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where, limit + "/" + window + " burst " + burst, String.valueOf(ex.getMessage()),
                    "Choose a limit, window and burst within those bounds");
        }
    }

    private static long limit(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimited annotation,
            String site, Map<String, String> from) {
        if (configured != null && configured.getLimit() != null) {
            from.put("limit", property(name, "limit"));
            return positive(configured.getLimit(), property(name, "limit"), "permits per window");
        }
        if (annotation != null && annotation.limit() != 0) {
            from.put("limit", site);
            return positive(annotation.limit(), attribute("limit", site), "permits per window");
        }
        throw new LimiterConfigurationException(property(name, "limit"), "(not set)",
                "Limiter '" + name + "' used by " + site + " has no limit",
                "Set limiter.limiters." + name + ".limit (or limits), or limit in the annotation");
    }

    private static Duration window(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimited annotation,
            String site, Map<String, String> from) {
        if (configured != null && configured.getWindow() != null) {
            from.put("window", property(name, "window"));
            return checkWindow(configured.getWindow(), property(name, "window"));
        }
        if (annotation != null && !annotation.window().isBlank()) {
            from.put("window", site);
            return checkWindow(parse(annotation.window(), attribute("window", site)), attribute("window", site));
        }
        throw new LimiterConfigurationException(property(name, "window"), "(not set)",
                "Limiter '" + name + "' used by " + site + " has no window",
                "Set limiter.limiters." + name + ".window (for example 10s), or window in the annotation");
    }

    private static Duration parse(String text, String where) {
        try {
            return DurationStyle.detectAndParse(text.trim());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where, "\"" + text + "\"", "Not a duration",
                    "Write a duration such as \"10s\", \"500ms\", \"1h\" or \"PT10S\"");
        }
    }

    private static Duration checkWindow(Duration window, String where) {
        if (window.isNegative() || window.isZero() || window.compareTo(LimitSpec.MAX_WINDOW) > 0) {
            throw new LimiterConfigurationException(where, window, "The window must be positive and at most " + LimitSpec.MAX_WINDOW.toDays()
                    + " days", "Set a window such as 1s, 10s or 1h");
        }
        return window;
    }

    private static long burst(String name, Algorithm algorithm, long limit, LimiterProperties.@Nullable Limiter configured,
            @Nullable RateLimited annotation, String site, Map<String, String> from) {
        long burst;
        String where;
        if (configured != null && configured.getBurst() != null) {
            where = property(name, "burst");
            burst = positive(configured.getBurst(), where, "bucket capacity");
            from.put("burst", where);
        }
        else if (annotation != null && annotation.burst() != 0) {
            where = attribute("burst", site);
            burst = positive(annotation.burst(), where, "bucket capacity");
            from.put("burst", site);
        }
        else {
            from.put("burst", "default");
            return limit;
        }
        checkBurst(algorithm, limit, burst, where);
        return burst;
    }

    private static void checkBurst(Algorithm algorithm, long limit, long burst, String where) {
        if (!algorithm.isBucket() && burst != limit) {
            throw new LimiterConfigurationException(where, burst, "A burst applies only to bucket algorithms, not to " + algorithm,
                    "Remove the burst, or choose algorithm token-bucket, leaky-bucket or gcra");
        }
    }

    private static int subWindows(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimited annotation,
            String site, Map<String, String> from) {
        if (configured != null && configured.getSubWindows() != null) {
            from.put("sub-windows", property(name, "sub-windows"));
            return (int) positive(configured.getSubWindows(), property(name, "sub-windows"), "number of sub-windows");
        }
        if (annotation != null && annotation.subWindows() != 0) {
            from.put("sub-windows", site);
            return (int) positive(annotation.subWindows(), attribute("subWindows", site), "number of sub-windows");
        }
        from.put("sub-windows", "default");
        return RateLimiterConfig.DEFAULT_SUB_WINDOWS;
    }

    private static Duration maxWait(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimited annotation,
            String site, Map<String, String> from) {
        if (configured != null && configured.getMaxWait() != null) {
            from.put("max-wait", property(name, "max-wait"));
            return checkedMaxWait(configured.getMaxWait(), property(name, "max-wait"));
        }
        if (annotation != null && !annotation.maxWait().isBlank()) {
            from.put("max-wait", site);
            String where = attribute("maxWait", site);
            return checkedMaxWait(parse(annotation.maxWait(), where), where);
        }
        from.put("max-wait", "default");
        return Duration.ZERO;
    }

    /**
     * {@code maxWait}, refused here with the property or attribute that set it: the limiter's config would
     * refuse it too, but could only blame the limits.
     */
    private static Duration checkedMaxWait(Duration maxWait, String where) {
        if (maxWait.isNegative() || maxWait.compareTo(RateLimiterConfig.MAX_WAIT) > 0 || maxWait.getNano() % 1_000 != 0) {
            throw new LimiterConfigurationException(where, maxWait, "max-wait must be whole microseconds between 0 and "
                    + RateLimiterConfig.MAX_WAIT + " (1 day) but was " + maxWait, "Set " + where + " to a duration from 0s to 1d, "
                    + "such as 500ms: how long a caller may wait for its permits");
        }
        return maxWait;
    }

    /** The lease of limiter {@code name}: configuration only (no annotation attribute), off unless set. */
    private static RateLimiterConfig.@Nullable Lease lease(String name, Algorithm algorithm, LimiterProperties.@Nullable Limiter configured,
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
        positive(permits, property(name, "lease.permits"), "number of permits leased");
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(RateLimiterConfig.MAX_LEASE_TTL) > 0 || ttl.getNano() % 1_000 != 0) {
            throw new LimiterConfigurationException(property(name, "lease.ttl"), ttl, "A lease's time-to-live must be whole microseconds "
                    + "above 0 and at most " + RateLimiterConfig.MAX_LEASE_TTL.toMinutes() + " minutes",
                    "Set a short time such as 50ms or 1s: leased permits unused by then are lost to the key");
        }
        return new RateLimiterConfig.Lease(permits, ttl);
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
