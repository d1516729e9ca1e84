package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * What a retune did: whether the configuration changed, the one before (as text), the limiter now,
 * and what became of the keys' state ({@code state} says why keys start fresh, such as a change of
 * windows with on-retune keep); when refused, why, and {@code current} is the limiter still in force.
 */
public record RetuneDescriptor(String limiter, boolean changed, @Nullable String previous, LimiterDescriptor current,
        @Nullable Boolean stateKept, @Nullable String state, @Nullable RefusalDescriptor refused) {
}
