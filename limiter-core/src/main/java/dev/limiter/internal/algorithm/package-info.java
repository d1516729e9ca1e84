/**
 * Not API: for other Limiter modules only, and may change in any release. The algorithms' Lua scripts,
 * assembled from their resources by {@link dev.limiter.internal.algorithm.Scripts}, for limiter-redis,
 * and their in-memory twins ({@link dev.limiter.internal.algorithm.LocalAlgorithm}), which decide alike,
 * for the in-memory backend and limiter-redis. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.internal.algorithm;

import org.jspecify.annotations.NullMarked;
