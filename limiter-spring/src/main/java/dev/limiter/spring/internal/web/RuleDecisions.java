package dev.limiter.spring.internal.web;

import dev.limiter.Decision;
import dev.limiter.RateLimiter;

/**
 * Hears each decision {@link RateLimitRules} makes for a request, allowed or not, before what follows
 * from it (the request proceeds, or fails): for callers that add to the answer what the RateLimit
 * header fields do not say, such as a gateway's {@code X-RateLimit-*} fields.
 */
@FunctionalInterface
public interface RuleDecisions {

    /** Hears nothing. */
    RuleDecisions NONE = (limiter, cost, decision) -> {
    };

    /**
     * @param limiter the limiter that decided (the registry's)
     * @param cost the permits the request asked for
     * @param decision what it decided
     */
    void decided(RateLimiter limiter, long cost, Decision decision);
}
