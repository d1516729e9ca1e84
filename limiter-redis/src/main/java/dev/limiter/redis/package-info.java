/**
 * Limiters whose state lives in Redis, shared by every instance of an application:
 * {@link dev.limiter.redis.RedisRateLimiterFactory}. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.redis;

import org.jspecify.annotations.NullMarked;
