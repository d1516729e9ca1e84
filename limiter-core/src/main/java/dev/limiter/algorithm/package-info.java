/**
 * The algorithms' Lua scripts ({@link dev.limiter.algorithm.Scripts}) and their in-memory twins
 * ({@link dev.limiter.algorithm.LocalAlgorithm}), which decide alike. Nothing here is null unless
 * marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.algorithm;

import org.jspecify.annotations.NullMarked;
