package dev.limiter.spring;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a call of a limiter with plans when what picks the call's plan (its expression or
 * {@link PlanResolver}) gives a plan the limiter does not have, or none and the limiter has no
 * default plan. The application's choice of plan and its configuration disagree, so the call cannot be
 * limited as intended and fails: over HTTP, a server error (500), not the client's.
 */
public class UnknownPlanException extends IllegalStateException {

    private final String limiterName;

    private final @Nullable String plan;

    private final Set<String> plans;

    /**
     * @param limiterName the limiter whose plan is unknown
     * @param plan the plan picked, as text; null when none was
     * @param plans the plans the limiter has
     * @param message what picked the plan, and what it picked
     */
    public UnknownPlanException(String limiterName, @Nullable String plan, Set<String> plans, String message) {
        super(message);
        this.limiterName = limiterName;
        this.plan = plan;
        this.plans = Set.copyOf(plans);
    }

    /** Name of the limiter whose plan is unknown. */
    public String getLimiterName() {
        return limiterName;
    }

    /** The plan picked, as text; null when none was and the limiter has no default plan. */
    public @Nullable String getPlan() {
        return plan;
    }

    /** The plans the limiter has. */
    public Set<String> getPlans() {
        return plans;
    }
}
