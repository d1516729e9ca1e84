/**
 * Limiter for any Spring application, the API its users write and catch: {@link dev.limiter.spring.RateLimited}
 * on a method, {@link dev.limiter.spring.KeyResolver} and {@link dev.limiter.spring.PlanResolver} for keys and
 * plans computed in code, and the exceptions a limited call or a bad configuration raises.
 * The interception behind it is in {@code dev.limiter.spring.internal.interceptor}; the web answer to a
 * rejection in {@code dev.limiter.spring.web}. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring;

import org.jspecify.annotations.NullMarked;
