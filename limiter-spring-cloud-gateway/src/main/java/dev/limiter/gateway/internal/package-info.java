/**
 * Not API: for Limiter's gateway integration only, may change in any release. What the reactive and
 * the Server MVC gateway share: the {@code X-RateLimit-*} fields, the limit of a route deciding through
 * {@code RequestRateLimiter}, and the rules of the routes' Limiter filters. Nothing here is null unless
 * marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.gateway.internal;

import org.jspecify.annotations.NullMarked;
