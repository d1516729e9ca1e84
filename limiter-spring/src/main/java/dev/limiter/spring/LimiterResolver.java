package dev.limiter.spring;

import dev.limiter.RateLimiter;

/**
 * Finds the limiter of a {@link RateLimited} method: the annotation's values, with whatever the
 * application configures for the same name in their place. Spring Boot's auto-configuration provides
 * one that reads {@code limiter.limiters.<name>}.
 */
public interface LimiterResolver {

    /**
     * The limiter {@code annotation} names, created on first use.
     *
     * @param site where the annotation is declared, for messages, such as {@code @RateLimited on Orders.place(..)}
     * @throws LimiterConfigurationException when the annotation and the configuration together are no valid limit
     */
    RateLimiter limiterFor(RateLimited annotation, String site);

    /** Whether calls limited through {@code annotation} only observe and are never refused. */
    boolean shadow(RateLimited annotation);
}
