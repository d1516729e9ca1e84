/**
 * Not API: for other Limiter modules only, may change in any release. The values of a limiter as code
 * writes them, read and checked once for plain Spring and for Spring Boot's auto-configuration:
 * {@link dev.limiter.spring.internal.limits.RateLimitedValues}, what a {@code @RateLimited} annotation says on
 * its own; {@link dev.limiter.spring.internal.limits.LimitChecks}, the bounds of a limit, window, burst and
 * max-wait, whatever sets them; {@link dev.limiter.spring.internal.limits.LimitNotation}, limits written as
 * {@code "10/1s"}. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring.internal.limits;

import org.jspecify.annotations.NullMarked;
