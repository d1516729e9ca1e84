package dev.limiter.spring.internal.interceptor;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.RateLimiter;
import dev.limiter.spring.RateLimited;

import org.jspecify.annotations.Nullable;

/**
 * Finds the limiter of a {@link dev.limiter.spring.RateLimited} method: the annotation's values, with whatever the
 * application configures for the same name in their place. Spring Boot's auto-configuration provides
 * one that reads {@code limiter.limiters.<name>}.
 */
public interface LimiterResolver {

    /**
     * The limiter {@code annotation} names, created on first use.
     *
     * @param site where the annotation is declared, for messages, such as {@code @RateLimited on Orders.place(..)}
     * @throws dev.limiter.spring.LimiterConfigurationException when the annotation and the configuration together are no valid limit
     */
    RateLimiter limiterFor(RateLimited annotation, String site);

    /**
     * The concurrency limiter {@code annotation} names, when its name is one of a limit of calls in flight
     * rather than of a rate; null otherwise (the default), and then {@link #limiterFor} is asked.
     *
     * @param site where the annotation is declared, for messages
     * @throws dev.limiter.spring.LimiterConfigurationException when the annotation asks what a concurrency limit cannot do
     */
    default @Nullable ConcurrencyLimiter concurrencyLimiterFor(RateLimited annotation, String site) {
        return null;
    }

    /** Whether calls limited through {@code annotation} only observe and are never refused. */
    boolean shadow(RateLimited annotation);

    /**
     * The plans of the limiter {@code annotation} names, what picks the plan of its calls, and its
     * keys that are never limited; {@link LimiterPlans#NONE} when it has none of these. When it has
     * plans, {@link #limiterFor} is not asked: each plan has a limiter of its own.
     *
     * @param site where the annotation is declared, for messages
     * @throws dev.limiter.spring.LimiterConfigurationException when the annotation and the configuration together are no valid plans
     */
    default LimiterPlans plans(RateLimited annotation, String site) {
        return LimiterPlans.NONE;
    }

    /**
     * The plans of limiter {@code name} for requests limited outside an annotation (a rule of
     * {@code limiter.rules}, a gateway route): as {@link #plans(RateLimited, String)}, with no annotation's values.
     *
     * @param site where the limiter is used, for messages, such as {@code limiter.rules[0]}
     */
    default LimiterPlans plans(String name, String site) {
        return LimiterPlans.NONE;
    }
}
