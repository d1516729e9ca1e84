package dev.limiter.outgoing.internal;

import dev.limiter.RateLimiter;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.redis.RedisRateLimiterFactory;

/**
 * Holds shared by every instance through Redis ({@link RedisRateLimiterFactory#holding}): one key per
 * limiter and key, {@code <prefix>:{<limiter>:<key>}:companion:hold} (the hash tag of the limiter's own
 * keys), holding the end of the hold and expiring with it, read by each decision's own script, so a call
 * costs one round trip. Time comes from Redis {@code TIME}, or from the factory's explicit clock in tests.
 * While Redis fails, no hold is read or written (logged): the limiter's failure policy decides every permit.
 */
public final class RedisHolds implements Holds {

    private final RedisRateLimiterFactory factory;

    /** @param factory the factory of the limiters held */
    public RedisHolds(RedisRateLimiterFactory factory) {
        this.factory = factory;
    }

    @Override
    public HoldingLimiter of(RateLimiter limiter) {
        return factory.holding(limiter);
    }
}
