package dev.limiter.spring.internal.interceptor;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.limiter.RateLimiter;

import org.jspecify.annotations.Nullable;

/**
 * What limits the calls of one limiter besides its own limits: its plans, each with a limiter of its
 * own (see {@link dev.limiter.RateLimiterRegistry#register(String, String, dev.limiter.RateLimiterConfig)})
 * or unlimited, what picks the plan of a call, and the keys that are never limited. A
 * {@link LimiterResolver} gives it for each {@link dev.limiter.spring.RateLimited} method; {@link #NONE} for a limiter
 * with neither plans nor unlimited keys.
 */
public final class LimiterPlans {

    /** No plans and no unlimited keys: every call is limited by the limiter's own limits. */
    public static final LimiterPlans NONE = new LimiterPlans(Map.of(), Set.of(), null, null, null, Set.of());

    private final Map<String, RateLimiter> limited;

    private final Set<String> unlimited;

    private final @Nullable Setting expression;

    private final @Nullable Setting resolver;

    private final @Nullable String defaultPlan;

    private final Set<String> unlimitedKeys;

    /**
     * @param limited the limiter of each plan with limits, by plan
     * @param unlimited the plans whose calls are never limited
     * @param expression the SpEL expression picking the plan of a call, and where it is written; null for none
     * @param resolver the name of the {@link dev.limiter.spring.PlanResolver} bean picking it instead, and where that is written;
     *     null for none
     * @param defaultPlan the plan of a call for which nothing picks one; null for none
     * @param unlimitedKeys keys whose calls are never limited, whatever their plan
     * @throws IllegalArgumentException when these cannot work together: a plan both limited and unlimited,
     *     something picking a plan of a limiter without plans, a default plan it does not have, both an
     *     expression and a resolver, or plans and nothing to pick one
     */
    public LimiterPlans(Map<String, RateLimiter> limited, Set<String> unlimited, @Nullable Setting expression, @Nullable Setting resolver,
            @Nullable String defaultPlan, Set<String> unlimitedKeys) {
        this.limited = Collections.unmodifiableMap(new TreeMap<>(limited));
        this.unlimited = Collections.unmodifiableSet(new TreeSet<>(unlimited));
        this.expression = expression;
        this.resolver = resolver;
        this.defaultPlan = defaultPlan;
        this.unlimitedKeys = Collections.unmodifiableSet(new LinkedHashSet<>(unlimitedKeys));
        if (limited.keySet().stream().anyMatch(unlimited::contains)) {
            throw new IllegalArgumentException("A plan cannot be both limited and unlimited: " + limited.keySet() + ", " + unlimited);
        }
        boolean planned = !limited.isEmpty() || !unlimited.isEmpty();
        if (!planned && (expression != null || resolver != null || defaultPlan != null)) {
            throw new IllegalArgumentException("Nothing can pick a plan of a limiter without plans");
        }
        if (expression != null && resolver != null) {
            throw new IllegalArgumentException("A plan is picked by an expression or a resolver, not both: " + expression + ", " + resolver);
        }
        if (defaultPlan != null && !plans().contains(defaultPlan)) {
            throw new IllegalArgumentException("The default plan '" + defaultPlan + "' is none of the plans " + plans());
        }
        if (planned && expression == null && resolver == null && defaultPlan == null) {
            throw new IllegalArgumentException("Nothing picks one of the plans " + plans());
        }
    }

    /** Whether the limiter has plans; if not, its own limits apply. */
    public boolean hasPlans() {
        return !limited.isEmpty() || !unlimited.isEmpty();
    }

    /** Every plan's name, in order. */
    public Set<String> plans() {
        Set<String> plans = new TreeSet<>(limited.keySet());
        plans.addAll(unlimited);
        return Collections.unmodifiableSet(plans);
    }

    /** The limiter of each plan with limits, by plan in order. */
    public Map<String, RateLimiter> limited() {
        return limited;
    }

    /** The plans whose calls are never limited. */
    public Set<String> unlimited() {
        return unlimited;
    }

    /** The SpEL expression picking the plan of a call, and where it is written; null for none. */
    public @Nullable Setting expression() {
        return expression;
    }

    /** The name of the {@link dev.limiter.spring.PlanResolver} bean picking the plan of a call, and where it is written; null for none. */
    public @Nullable Setting resolver() {
        return resolver;
    }

    /** The plan of a call for which nothing picks one (or what picks gives null or empty text); null for none. */
    public @Nullable String defaultPlan() {
        return defaultPlan;
    }

    /** Keys whose calls are never limited, whatever their plan. */
    public Set<String> unlimitedKeys() {
        return unlimitedKeys;
    }

    /**
     * A value as configured, and where: the property or annotation attribute, for messages.
     *
     * @param value the value, such as {@code #request.getHeader('X-Plan')}
     * @param where where it is written, such as {@code limiter.limiters.api.plan} or
     *     {@code @RateLimited(plan) on Api.call()}
     */
    public record Setting(String value, String where) {
    }
}
