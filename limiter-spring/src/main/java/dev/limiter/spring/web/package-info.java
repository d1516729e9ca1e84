/**
 * The web half of Limiter's API: {@link dev.limiter.spring.web.RateLimitExceededHandler} answers a rejected
 * call with {@code 429 Too Many Requests}, {@code Retry-After}, the RateLimit header fields and a ProblemDetail
 * body (400 for a missing key), and {@link dev.limiter.spring.web.ClientIpResolver} finds the client's address
 * for {@code #clientIp} without letting the client choose it. The rules of {@code limiter.rules} and their
 * filters are in {@code dev.limiter.spring.internal.web}. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring.web;

import org.jspecify.annotations.NullMarked;
