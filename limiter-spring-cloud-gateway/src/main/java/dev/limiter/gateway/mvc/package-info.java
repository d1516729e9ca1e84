/**
 * Limiter in Spring Cloud Gateway's Server MVC gateway: the {@code Limiter} filter function,
 * {@link dev.limiter.gateway.mvc.LimiterFilterFunctions}, for Java and YAML routes. Nothing here is null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.gateway.mvc;

import org.jspecify.annotations.NullMarked;
