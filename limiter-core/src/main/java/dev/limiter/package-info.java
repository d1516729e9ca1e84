/**
 * The rate limiting API, without Spring: {@link dev.limiter.RateLimiter} and its
 * {@link dev.limiter.Decision}, the configuration ({@link dev.limiter.RateLimiterConfig},
 * {@link dev.limiter.LimitSpec}, {@link dev.limiter.Algorithm}) and the registry of named limiters.
 * Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter;

import org.jspecify.annotations.NullMarked;
