/**
 * Limiters whose state lives in this process: {@link dev.limiter.memory.InMemoryRateLimiterFactory}.
 * Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.memory;

import org.jspecify.annotations.NullMarked;
