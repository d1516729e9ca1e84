/**
 * Limiter in Spring Cloud Gateway's reactive server: {@link dev.limiter.gateway.LimiterRateLimiter} for the
 * gateway's {@code RequestRateLimiter} filter, and the {@code Limiter} filter
 * ({@link dev.limiter.gateway.LimiterGatewayFilterFactory}); both auto-configured with the gateway on the class
 * path. The Server MVC gateway's filter functions are in {@code dev.limiter.gateway.mvc}. Nothing here is null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.gateway;

import org.jspecify.annotations.NullMarked;
