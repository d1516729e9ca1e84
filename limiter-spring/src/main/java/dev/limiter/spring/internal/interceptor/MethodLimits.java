package dev.limiter.spring.internal.interceptor;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import dev.limiter.Outcome;
import dev.limiter.RateLimiter;
import dev.limiter.spring.KeyContext;
import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.UnknownPlanException;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * The limits the calls of one {@code @RateLimited} method (or the requests of one rule) are decided
 * by: its limiter's own, or those of the plan each call picks (by expression, {@link PlanResolver} or the default plan); no limit for
 * the limiter's unlimited keys and plans.
 */
public final class MethodLimits {

    /** The limit of an unlimited key: none, whatever the plan. */
    private static final AppliedLimit UNLIMITED_KEY = AppliedLimit.unlimited(null);

    private final String name;

    /** The limiter's own limits; null for a limiter with plans. */
    private final @Nullable AppliedLimit own;

    private final Map<String, AppliedLimit> plans;

    private final @Nullable Expression expression;

    private final @Nullable Supplier<PlanResolver> resolver;

    /** What picks the plan, as written and where, for messages: "the plan expression #x (limiter.limiters.api.plan)". */
    private final String picker;

    private final @Nullable String defaultPlan;

    private final Set<String> unlimitedKeys;

    /** The limiter whose name and algorithm the calls are counted under, unlimited or not. */
    private final RateLimiter counted;

    private MethodLimits(String name, @Nullable AppliedLimit own, Map<String, AppliedLimit> plans, @Nullable Expression expression,
            @Nullable Supplier<PlanResolver> resolver, String picker, @Nullable String defaultPlan, Set<String> unlimitedKeys,
            RateLimiter counted) {
        this.name = name;
        this.own = own;
        this.plans = plans;
        this.expression = expression;
        this.resolver = resolver;
        this.picker = picker;
        this.defaultPlan = defaultPlan;
        this.unlimitedKeys = unlimitedKeys;
        this.counted = counted;
    }

    /**
     * The limits of {@code limiter}, but for {@code unlimitedKeys}.
     *
     * @param rejectedAs what becomes of a rejected call of the method
     */
    static MethodLimits of(RateLimiter limiter, Set<String> unlimitedKeys, Outcome rejectedAs) {
        return new MethodLimits(limiter.name(), AppliedLimit.of(null, limiter, rejectedAs), Map.of(), null, null, "", null,
                Set.copyOf(unlimitedKeys), limiter);
    }

    /**
     * The plans of limiter {@code name}.
     *
     * @param expression the parsed expression of {@code plans}, if it has one
     * @param resolver the resolver bean of {@code plans}, if it has one
     * @param rejectedAs what becomes of a rejected call of the method
     * @throws IllegalArgumentException when no plan has limits: nothing would name and count the calls
     */
    static MethodLimits ofPlans(String name, LimiterPlans plans, @Nullable Expression expression, @Nullable Supplier<PlanResolver> resolver,
            Outcome rejectedAs) {
        Map<String, AppliedLimit> limits = new LinkedHashMap<>();
        plans.limited().forEach((plan, limiter) -> limits.put(plan, AppliedLimit.of(plan, limiter, rejectedAs)));
        plans.unlimited().forEach((plan) -> limits.put(plan, AppliedLimit.unlimited(plan)));
        RateLimiter counted = plans.limited().values().stream().findFirst()
            .orElseThrow(() -> new IllegalArgumentException("Every plan of limiter '" + name + "' is unlimited"));
        String picker = (plans.expression() != null)
                ? "the plan expression " + plans.expression().value() + " (" + plans.expression().where() + ")"
                : (plans.resolver() != null) ? "the plan resolver '" + plans.resolver().value() + "' (" + plans.resolver().where() + ")"
                        : "nothing";
        return new MethodLimits(name, null, Map.copyOf(limits), expression, resolver, picker, plans.defaultPlan(), plans.unlimitedKeys(),
                counted);
    }

    /** The limiter's name. */
    String name() {
        return name;
    }

    /** The limiter whose name and algorithm the method's calls are counted under. */
    public RateLimiter counted() {
        return counted;
    }

    /** Whether a plan is picked in code, from the call and its request. */
    public boolean hasPlanResolver() {
        return resolver != null;
    }

    /** Whether a plan is picked by an expression, evaluated with the key's. */
    boolean hasPlanExpression() {
        return expression != null;
    }

    /**
     * The limit of a call limited under {@code key}.
     *
     * @param context where the plan expression is evaluated, if there is one
     * @param call the call, for the plan resolver; null when there is none
     * @throws UnknownPlanException when the plan picked is none of the limiter's
     */
    public AppliedLimit limitOf(String key, @Nullable EvaluationContext context, @Nullable KeyContext call) {
        if (!unlimitedKeys.isEmpty() && unlimitedKeys.contains(key)) {
            return UNLIMITED_KEY;
        }
        if (own != null) {
            return own;
        }
        String plan = null;
        if (expression != null) {
            Object value = expression.getValue(Objects.requireNonNull(context, "The plan expression needs its evaluation context"));
            plan = (value != null) ? value.toString() : null;
        }
        else if (resolver != null) {
            plan = resolver.get().resolve(Objects.requireNonNull(call, "The plan resolver needs the call"), key);
        }
        if (plan == null || plan.isEmpty()) {
            if (defaultPlan == null) {
                throw new UnknownPlanException(name, null, plans.keySet(), "Limiter '" + name + "' cannot limit the call: " + picker
                        + " picked no plan (" + ((plan == null) ? "null" : "empty text") + ") and it has no default plan; its plans are "
                        + sorted());
            }
            plan = defaultPlan;
        }
        AppliedLimit limit = plans.get(plan);
        if (limit == null) {
            throw new UnknownPlanException(name, plan, plans.keySet(), "Limiter '" + name + "' has no plan '" + plan + "', which " + picker
                    + " picked; its plans are " + sorted());
        }
        return limit;
    }

    private Set<String> sorted() {
        return new TreeSet<>(plans.keySet());
    }
}
