package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * What a reset did: whether the key was reset (in {@code plan}, or in every plan when null), and
 * whether it had state to clear (false: it was idle already); when not reset, why.
 */
public record ResetDescriptor(String limiter, @Nullable String plan, String key, boolean reset, @Nullable Boolean hadState,
        @Nullable String error) {
}
