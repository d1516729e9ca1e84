package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * The quota of one key, under {@code plan} (null for a limiter without plans); {@code source} is
 * what answered (redis, memory, local-fallback, failure-policy).
 */
public record QuotaDescriptor(String limiter, @Nullable String plan, String key, long limit, long remaining, String resetAfter,
        String source) implements KeyQuotaDescriptor {
}
