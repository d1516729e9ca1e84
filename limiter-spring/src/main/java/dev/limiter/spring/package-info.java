/**
 * Limiter for any Spring application, the API its users write and catch: {@link dev.limiter.spring.RateLimited}
 * on a method, {@link dev.limiter.spring.KeyResolver} and {@link dev.limiter.spring.PlanResolver} for keys and
 * plans computed in code, the exceptions a limited call or a bad configuration raises, and
 * {@link dev.limiter.spring.EnableRateLimiting}, which turns limiting on in an application without Spring Boot.
 * The interception behind it is in {@code dev.limiter.spring.internal.interceptor}; the web answer to a
 * rejection in {@code dev.limiter.spring.web}. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring;

import org.jspecify.annotations.NullMarked;
