/**
 * The web answer to a rejected call: {@link dev.limiter.spring.web.RateLimitExceededHandler} turns it into
 * {@code 429 Too Many Requests} with {@code Retry-After} and a ProblemDetail body. Nothing here is null unless
 * marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring.web;

import org.jspecify.annotations.NullMarked;
