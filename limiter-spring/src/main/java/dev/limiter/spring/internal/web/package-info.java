/**
 * Not API: for other Limiter modules only, may change in any release. The rules of {@code limiter.rules},
 * limiting HTTP requests without an annotation: {@link dev.limiter.spring.internal.web.RateLimitRules} checks
 * them at startup and applies them, through {@link dev.limiter.spring.internal.web.RateLimitRuleFilter} in a
 * servlet application and {@link dev.limiter.spring.internal.web.RateLimitRuleWebFilter} in WebFlux. Nothing
 * here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring.internal.web;

import org.jspecify.annotations.NullMarked;
