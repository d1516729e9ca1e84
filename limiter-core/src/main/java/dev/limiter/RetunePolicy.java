package dev.limiter;

/**
 * What becomes of each key's state when a limiter is retuned while it runs (see
 * {@link RateLimiter#retune(RateLimiterConfig)}), as {@link RateLimiterConfig#onRetune()} says.
 */
public enum RetunePolicy {

    /**
     * Every key starts fresh under the new configuration: in Redis, each configuration has keys of its
     * own (a digest of it is part of every key), so state written under other limits is never read.
     */
    RESET,

    /**
     * Every key continues from its state under the new limits, as long as that state has the same
     * shape: the same algorithm, windows and sub-windows. Counting algorithms keep the permits each
     * key used; bucket algorithms keep each key's tokens, level or arrival time. Keys start fresh when
     * the shape changes, since state of another shape means nothing under the new configuration.
     */
    KEEP
}
