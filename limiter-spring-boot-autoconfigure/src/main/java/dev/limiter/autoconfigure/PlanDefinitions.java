package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterDefinition.property;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.internal.LimiterArguments;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RetunePolicy;
import dev.limiter.spring.internal.interceptor.LimiterPlans;
import dev.limiter.spring.internal.interceptor.LimiterPlans.Setting;
import dev.limiter.spring.internal.limits.RateLimitedValues;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The plans of a limiter ({@code limiter.limiters.<name>.plans}), validated as at startup: each plan's
 * limits with the limiter's algorithm and options, what picks the plan of a call (an expression, a plan
 * resolver or a default plan, by property or annotation), and the keys never limited.
 */
final class PlanDefinitions {

    /** Checks the syntax of plan expressions in properties, whichever method uses them. */
    private static final SpelExpressionParser PLAN_PARSER = new SpelExpressionParser();

    private PlanDefinitions() {
    }

    /** What picks the plan of a call, and the keys never limited: read before the plans themselves. */
    record Picking(@Nullable Setting expression, @Nullable Setting resolver, @Nullable String defaultPlan, Set<String> unlimitedKeys) {
    }

    /** The limiters of the plans with limits, by plan, and the unlimited plans. */
    record Plans(Map<String, RateLimiter> limited, Set<String> unlimited) {
    }

    static Picking picking(String name, LimiterProperties.@Nullable Limiter configured, @Nullable RateLimitedValues annotation) {
        Setting expression = expression(name, configured, annotation);
        Setting resolver = (expression == null) ? resolver(name, configured, annotation) : null;
        return new Picking(expression, resolver, defaultPlan(configured), unlimitedKeys(name, configured));
    }

    /** What a limiter without plans gets: refused if anything would pick a plan; else its unlimited keys, if any. */
    static LimiterPlans withoutPlans(String name, Picking picking) {
        Setting picker = (picking.expression() != null) ? picking.expression() : picking.resolver();
        if (picker != null) {
            throw new LimiterConfigurationException(picker.where(), "\"" + picker.value() + "\"", "Limiter '" + name
                    + "' has no plans to pick from", "Define its plans under limiter.limiters." + name + ".plans, or remove "
                            + picker.where());
        }
        if (picking.defaultPlan() != null) {
            throw new LimiterConfigurationException(property(name, "default-plan"), picking.defaultPlan(), "Limiter '" + name + "' has no plans",
                    "Define its plans under limiter.limiters." + name + ".plans, or remove " + property(name, "default-plan"));
        }
        return picking.unlimitedKeys().isEmpty() ? LimiterPlans.NONE
                : new LimiterPlans(Map.of(), Set.of(), null, null, null, picking.unlimitedKeys());
    }

    /**
     * The plans of limiter {@code name}, its plans registered by {@code register} (plan, configuration),
     * checked to be picked by something; {@code from} gets where each value came from.
     */
    static LimiterPlans plans(String name, LimiterProperties.Limiter configured, @Nullable RateLimitedValues annotation, String site,
            Picking picking, Map<String, String> from, BiFunction<String, RateLimiterConfig, RateLimiter> register) {
        Plans plans = register(name, configured, annotation, site, from, register);
        Set<String> all = new TreeSet<>(plans.limited().keySet());
        all.addAll(plans.unlimited());
        String defaultPlan = picking.defaultPlan();
        if (defaultPlan != null && !all.contains(defaultPlan)) {
            throw new LimiterConfigurationException(property(name, "default-plan"), defaultPlan, "Limiter '" + name + "' has no plan '"
                    + defaultPlan + "'; its plans are " + all, "Set " + property(name, "default-plan") + " to one of them");
        }
        if (picking.expression() == null && picking.resolver() == null && defaultPlan == null) {
            throw new LimiterConfigurationException(property(name, "plan"), "(not set)", "Limiter '" + name + "'" + ((annotation != null)
                    ? " used by " + site : "") + " has plans " + all + ", but nothing picks the plan of a call",
                    "Set " + property(name, "plan") + " to an expression such as #request.getHeader('X-Plan'), "
                            + property(name, "plan-resolver") + " to a PlanResolver bean, or " + property(name, "default-plan")
                            + " to one of the plans");
        }
        Setting picker = (picking.expression() != null) ? picking.expression() : picking.resolver();
        from.put("plan", (picker != null) ? picker.where() : "default");
        from.put("default-plan", (defaultPlan != null) ? property(name, "default-plan") : "default");
        return new LimiterPlans(plans.limited(), plans.unlimited(), picking.expression(), picking.resolver(), defaultPlan,
                picking.unlimitedKeys());
    }

    /**
     * Registers the limiter of each plan of limiter {@code name} that has limits: the plan's limits,
     * with the limiter's algorithm and options (configured, else the annotation's, else the defaults).
     */
    static Plans register(String name, LimiterProperties.Limiter configured, @Nullable RateLimitedValues annotation,
            String site, Map<String, String> from, BiFunction<String, RateLimiterConfig, RateLimiter> register) {
        checkNoOwnLimits(name, configured);
        Algorithm algorithm = LimiterDefinition.algorithm(name, configured, annotation, site, from);
        int subWindows = LimiterDefinition.subWindows(name, configured, annotation, from);
        Duration maxWait = LimiterDefinition.maxWait(name, configured, annotation, from);
        FailurePolicy onRedisFailure = LimiterDefinition.onRedisFailure(name, configured, from);
        RateLimiterConfig.Lease lease = LimiterDefinition.lease(name, algorithm, configured, from);
        from.put("plans", property(name, "plans"));
        Map<String, RateLimiter> limited = new LinkedHashMap<>();
        Set<String> unlimited = new TreeSet<>();
        List<LimitSpec> everyLimit = new ArrayList<>();
        configured.getPlans().forEach((plan, planned) -> {
            String where = property(name, "plans." + plan);
            try {
                LimiterArguments.checkPlan(plan);
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
            List<LimitSpec> limits = limits(name, configured, plan, algorithm, planned);
            everyLimit.addAll(limits);
            RateLimiterConfig config;
            try {
                config = new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, RetunePolicy.RESET, lease);
            }
            catch (IllegalArgumentException ex) {
                throw new LimiterConfigurationException(planned.getLimits().isEmpty() ? where : where + ".limits", algorithm + " " + limits,
                        "Plan '" + plan + "' of limiter '" + name + "': " + ex.getMessage(), "Correct the limits of plan '" + plan + "'");
            }
            limited.put(plan, register.apply(plan, config));
        });
        LimiterDefinition.checkCalendarUsed(name, configured, everyLimit);
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
    private static List<LimitSpec> limits(String name, LimiterProperties.Limiter owner, String plan, Algorithm algorithm,
            LimiterProperties.Plan planned) {
        String where = property(name, "plans." + plan);
        boolean single = planned.getLimit() != null || planned.getWindow() != null || planned.getBurst() != null;
        if (!planned.getLimits().isEmpty()) {
            if (single) {
                throw LimiterDefinition.mutuallyExclusive(where, planned.getLimit(), planned.getWindow(), planned.getBurst());
            }
            return LimiterDefinition.configuredLimits(name, owner, where, algorithm, planned.getLimits());
        }
        Long limit = planned.getLimit();
        Duration window = planned.getWindow();
        if (limit == null && window == null) {
            throw new LimiterConfigurationException(where, "(no limits)", "Plan '" + plan + "' of limiter '" + name + "' has no limits",
                    "Set " + where + ".limit and " + where + ".window, or " + where + ".limits, or " + where + ".unlimited=true");
        }
        if (limit == null || window == null) {
            String missing = (limit == null) ? "limit" : "window";
            throw new LimiterConfigurationException(where + "." + missing, "(not set)", "Plan '" + plan + "' of limiter '" + name
                    + "' has no " + missing, "Set " + where + "." + missing);
        }
        return List.of(LimiterDefinition.configuredLimit(name, owner, where, algorithm, planned));
    }

    /** The plan expression: limiter.limiters.x.plan, else the annotation's (unless the property names a plan resolver). */
    private static @Nullable Setting expression(String name, LimiterProperties.@Nullable Limiter configured,
            @Nullable RateLimitedValues annotation) {
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
        return annotation.plan();
    }

    /** The plan resolver bean: limiter.limiters.x.plan-resolver, else the annotation's (when no property picks the plan). */
    private static @Nullable Setting resolver(String name, LimiterProperties.@Nullable Limiter configured,
            @Nullable RateLimitedValues annotation) {
        String resolver = (configured != null) ? configured.getPlanResolver() : null;
        if (resolver != null && !resolver.isBlank()) {
            return new Setting(resolver.trim(), property(name, "plan-resolver"));
        }
        boolean configuredPlan = configured != null && configured.getPlan() != null && !configured.getPlan().isBlank();
        return (annotation == null || configuredPlan) ? null : annotation.planResolver();
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

    /** The plans of {@code configured} that are unlimited, in order; empty for none. */
    static Set<String> unlimitedPlans(LimiterProperties.@Nullable Limiter configured) {
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

    /** The default plan of {@code configured}; null for none. */
    static @Nullable String defaultPlan(LimiterProperties.@Nullable Limiter configured) {
        return (configured != null && configured.getDefaultPlan() != null && !configured.getDefaultPlan().isBlank())
                ? configured.getDefaultPlan().trim() : null;
    }
}
