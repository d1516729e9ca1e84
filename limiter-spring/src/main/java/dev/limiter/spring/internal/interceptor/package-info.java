/**
 * Not API: for other Limiter modules only, may change in any release. The interception of
 * {@code @RateLimited} methods: {@link dev.limiter.spring.internal.interceptor.RateLimitedAdvisingPostProcessor}
 * proxies the beans, {@link dev.limiter.spring.internal.interceptor.RateLimitedMethods} prepares each method once
 * (its limiter through a {@link dev.limiter.spring.internal.interceptor.LimiterResolver}, its key, cost and plan
 * expressions), and {@code RateLimitInterceptor} limits each call, rendered by the method's return kind (plain,
 * {@code CompletionStage}, reactive) and answered by a fallback method where it has one. Nothing here is null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring.internal.interceptor;

import org.jspecify.annotations.NullMarked;
