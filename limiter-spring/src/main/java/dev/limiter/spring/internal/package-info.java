/**
 * Not API: for other Limiter modules only, may change in any release. What the interception of
 * {@code @RateLimited} methods ({@code .interceptor}) and the rules of {@code limiter.rules} ({@code .web})
 * share: {@link dev.limiter.spring.internal.DecisionOutcomes}, where every decided call is recorded, and
 * {@link dev.limiter.spring.internal.Consequence}, what becomes of it; the request a call serves
 * ({@link dev.limiter.spring.internal.ServedRequest}) and how the current servlet request, response or WebFlux
 * exchange is found; the RateLimit header fields. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring.internal;

import org.jspecify.annotations.NullMarked;
