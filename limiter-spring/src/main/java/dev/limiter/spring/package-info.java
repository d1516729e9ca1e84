/**
 * Limiter for any Spring application: {@link dev.limiter.spring.RateLimited} and its interception (SpEL
 * keys, fallbacks, blocking, Reactor and {@code CompletionStage} methods), without Spring Boot. Nothing
 * here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.spring;

import org.jspecify.annotations.NullMarked;
