package dev.limiter.spring.internal;

import java.security.Principal;

import dev.limiter.spring.MissingKeyPolicy;
import dev.limiter.spring.MissingRateLimitKeyException;

import org.jspecify.annotations.Nullable;

/**
 * What the value of a key or cost expression stands for, the same for {@code @RateLimited} methods and
 * for rules of {@code limiter.rules}: a key's text (or what a missing key becomes), a cost's permits.
 */
public final class KeysAndCosts {

    private KeysAndCosts() {
    }

    /** A principal stands for its name: its toString may hold details that change per session. */
    public static @Nullable String text(@Nullable Object value) {
        if (value instanceof String text) {
            // Most keys; and asking a String whether it is a Principal first scans all its interfaces on every call.
            return text;
        }
        if (value instanceof Principal principal) {
            return principal.getName();
        }
        return (value != null) ? value.toString() : null;
    }

    /**
     * The key {@code text}, or what {@code onMissingKey} makes of a missing one: null to skip the
     * call, "" to share one key, or a {@link MissingRateLimitKeyException}.
     *
     * @param source what gave the key, for the message: "The rate limit key #clientIp of limiter.rules[0]"
     */
    public static @Nullable String keyOrMissing(@Nullable String text, MissingKeyPolicy onMissingKey, String limiterName, String source) {
        if (text != null && !text.isEmpty()) {
            return text;
        }
        return switch (onMissingKey) {
            case SKIP -> null;
            case SHARED -> "";
            case REJECT -> throw new MissingRateLimitKeyException(limiterName, source + " evaluated to "
                    + (text == null ? "null" : "an empty text") + "; the call cannot be limited without it (limiter.on-missing-key=reject)");
        };
    }

    /**
     * The permits a cost expression's {@code value} stands for: a whole number of at least 1.
     *
     * @throws IllegalArgumentException naming the expression and where it is written, for any other value
     */
    public static long permits(@Nullable Object value, String expression, String site) {
        if (value instanceof Number number && number.doubleValue() == number.longValue() && number.longValue() >= 1) {
            return number.longValue();
        }
        throw new IllegalArgumentException("The rate limit cost " + expression + " of " + site + " evaluated to " + value
                + "; it must be a whole number of at least 1");
    }
}
