package dev.limiter.spring;

import org.jspecify.annotations.Nullable;

/**
 * Picks the plan a call is limited by in code, instead of a {@code plan} expression: a bean named by
 * {@link RateLimited#planResolver()} or {@code limiter.limiters.<name>.plan-resolver}. Called once
 * per call that is limited (for a reactive method, once per subscription, in the subscriber's
 * context), after its key; a null or empty result takes the limiter's default plan.
 *
 * <pre>{@code
 * @Bean
 * PlanResolver accountPlan(Accounts accounts) {
 *     return (call, key) -> accounts.find(key).map(Account::plan).orElse("free");
 * }
 * }</pre>
 */
@FunctionalInterface
public interface PlanResolver {

    /**
     * @param call the method called, its arguments and the request it serves
     * @param key the key the call is limited under
     * @return the name of the call's plan, one of the limiter's plans; null or empty for its default plan
     */
    @Nullable String resolve(KeyContext call, String key);
}
