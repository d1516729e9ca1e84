package dev.limiter.spring.internal;

import dev.limiter.RateLimiter;

/**
 * What one limit applies to, as the recording of its decisions sees it: a {@code @RateLimited}
 * method ({@code LimitedMethod}) or a rule of {@code limiter.rules} ({@code LimitedRule}). Both go
 * through {@link DecisionOutcomes} and {@link Consequence}, so they are counted, logged and
 * announced alike.
 */
public interface EnforcementPoint {

    /** The registry's limiter, whose name and algorithm its calls are counted under. */
    RateLimiter limiter();

    /** Where the limit is declared, for messages: "@RateLimited on OrderService.list(User)", "limiter.rules[0]". */
    String site();

    /** Whether the limiter only observes: rejected calls proceed and no call waits. */
    boolean shadow();

    /** Whether something other than a rejection answers a rejected call (a fallback method). */
    boolean hasFallback();
}
