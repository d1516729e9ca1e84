package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * A refused value: the property, the value, what is wrong with it and what to do, as startup reports it,
 * and the field of the request that set it (null when the value did not come from the request).
 */
public record RefusalDescriptor(String property, @Nullable String value, String problem, String action, @Nullable String field) {
}
