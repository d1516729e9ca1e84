/**
 * Actuator support: the {@code limiters} endpoint and health indicator. Nothing here is null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
