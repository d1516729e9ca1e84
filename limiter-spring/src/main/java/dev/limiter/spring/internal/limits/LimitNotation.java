package dev.limiter.spring.internal.limits;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The notation of limits in text: {@code "<limit>/<window>"} such as {@code "10/1s"}, followed by
 * {@code "/<burst>"} where a burst is allowed, several separated by commas ({@code "10/1s, 1000/1h"}).
 * {@code @RateLimited(limits)} writes one limit per element and no burst; the {@code limiters} endpoint
 * takes a list, bursts allowed. This reads the notation only: each caller converts and checks the values,
 * and says what is wrong in its own terms.
 */
public final class LimitNotation {

    private LimitNotation() {
    }

    /** One limit as written, each part trimmed: its limit, its window, and its burst (null when not written). */
    public record Written(String limit, String window, @Nullable String burst) {
    }

    /**
     * The limit {@code text} writes; null when it is not one limit in the notation (a part missing or
     * blank, or a burst where none is allowed).
     */
    public static @Nullable Written limit(String text, boolean burstAllowed) {
        String[] parts = text.trim().split("/", -1);
        if (parts.length < 2 || parts.length > (burstAllowed ? 3 : 2)) {
            return null;
        }
        for (String part : parts) {
            if (part.isBlank()) {
                return null;
            }
        }
        return new Written(parts[0].trim(), parts[1].trim(), (parts.length == 3) ? parts[2].trim() : null);
    }

    /** The limits {@code text} writes, separated by commas; null when one of them is not a limit in the notation. */
    public static @Nullable List<Written> limits(String text, boolean burstAllowed) {
        List<Written> limits = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            Written limit = limit(part, burstAllowed);
            if (limit == null) {
                return null;
            }
            limits.add(limit);
        }
        return limits;
    }
}
