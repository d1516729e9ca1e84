/**
 * Micrometer meters and observations of rate limit decisions, as a listener of the limiters' decision events.
 * Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
