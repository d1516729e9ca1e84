package dev.limiter.spring.internal.web;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One rule limiting HTTP requests without an annotation, as configured (Spring Boot binds it from
 * {@code limiter.rules[n]}): the requests it applies to, the limiter that decides them and the key
 * and cost of each. {@link RateLimitRules} checks and prepares it.
 *
 * @param property where the rule is configured, naming it in messages, such as {@code limiter.rules[0]}
 * @param paths path patterns of the requests it applies to, in Spring's {@code PathPattern} syntax
 *     ({@code /api/orders/**}, {@code /api/orders/{id}}), matched against the path within the application
 * @param methods HTTP methods it applies to, such as {@code GET}; empty for every method
 * @param when SpEL condition over the request ({@code #request}, {@code #principal}, {@code #clientIp}):
 *     the rule applies only when it is true; null to always apply
 * @param unless SpEL condition over the request: the rule does not apply when it is true; null for none
 * @param limiter name of the limiter deciding, one of the registry's
 * @param key SpEL giving the key each request is limited under; null or empty for one key shared by all
 * @param cost SpEL giving the permits each request takes, a whole number of at least 1; null for 1
 * @param shadow whether the limiter only observes: rejected requests proceed and get no RateLimit fields
 */
public record RateLimitRule(String property, List<String> paths, List<String> methods, @Nullable String when, @Nullable String unless,
        String limiter, @Nullable String key, @Nullable String cost, boolean shadow) {

    public RateLimitRule {
        // Copies that keep a blank entry as written, for the check to name it.
        paths = Collections.unmodifiableList(new ArrayList<>(paths));
        methods = Collections.unmodifiableList(new ArrayList<>(methods));
    }
}
