package dev.limiter.internal.algorithm;

import dev.limiter.Decision;
import dev.limiter.Quota;
import dev.limiter.RateLimiterConfig;

/**
 * A reference model of one algorithm, written from docs/algorithms.md alone: plain Java, exact
 * arithmetic, state per key, nothing shared with the Lua scripts or the in-memory twins. Tests hold
 * both backends to it. Not thread-safe; time is passed with every request.
 */
public interface Model {

    /** Decides a request for {@code permits} permits of {@code key} at {@code nowMicros}, as the spec says. */
    Decision tryAcquire(String key, long permits, long nowMicros);

    /** Gives {@code permits} permits back to {@code key} at {@code nowMicros} ("Refunds" in the spec): its quota afterwards. */
    Quota refund(String key, long permits, long nowMicros);

    /**
     * Takes {@code permits} from {@code key} at {@code nowMicros} whatever the limits say ("Charges" in the
     * spec, docs/settled-costs.md's debt table): its quota afterwards.
     */
    Quota charge(String key, long permits, long nowMicros);

    /** The quota of {@code key} at {@code nowMicros}, changing nothing. */
    Quota quota(String key, long nowMicros);

    /** A fresh model (every key idle) of {@code config}'s algorithm, limits and options. */
    static Model of(RateLimiterConfig config) {
        return switch (config.algorithm()) {
            case FIXED_WINDOW -> new FixedWindowModel(config);
            case SLIDING_WINDOW -> new SlidingWindowModel(config);
            case SLIDING_LOG -> new SlidingLogModel(config);
            case TOKEN_BUCKET -> new TokenBucketModel(config);
            case LEAKY_BUCKET -> new LeakyBucketModel(config);
            case GCRA -> new GcraModel(config);
        };
    }
}
