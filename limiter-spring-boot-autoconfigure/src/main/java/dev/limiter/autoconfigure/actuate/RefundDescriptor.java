package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * What a refund did: whether {@code permits} were given back to the key (under {@code plan}, null for
 * a limiter without plans), and its quota after it ({@code limit}, {@code remaining},
 * {@code resetAfter}, and {@code source}, what answered); when not, why: {@code error} when the state
 * could not be reached, {@code refused} for a request to correct.
 */
public record RefundDescriptor(String limiter, @Nullable String plan, String key, boolean refunded, @Nullable Long permits,
        @Nullable Long limit, @Nullable Long remaining, @Nullable String resetAfter, @Nullable String source, @Nullable String error,
        @Nullable RefusalDescriptor refused) {
}
