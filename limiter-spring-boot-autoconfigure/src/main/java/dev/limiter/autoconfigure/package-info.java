/**
 * Spring Boot auto-configuration of Limiter: the {@code limiter.*} properties
 * ({@link dev.limiter.autoconfigure.LimiterProperties}), the backend's factory, the limiters' definitions
 * and retuning. Nothing here is null unless marked {@code @Nullable}; unset properties are.
 */
@NullMarked
package dev.limiter.autoconfigure;

import org.jspecify.annotations.NullMarked;
