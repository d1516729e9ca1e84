/**
 * Not API: types public only so that other Limiter modules (limiter-redis, limiter-spring, the
 * auto-configuration) can use them. Applications must not use them; they may change in any release.
 * Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.internal;

import org.jspecify.annotations.NullMarked;
