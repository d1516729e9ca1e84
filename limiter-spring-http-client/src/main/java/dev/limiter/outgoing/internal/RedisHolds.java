package dev.limiter.outgoing.internal;

import dev.limiter.LimiterClock;
import dev.limiter.RateLimiter;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Holds shared by every instance through Redis ({@link RedisRateLimiterFactory#holding}): one key per
 * limiter and key, {@code <prefix>:{<limiter>:<key>}:companion:hold} (the hash tag of the limiter's own
 * keys), holding the end of the hold and expiring with it, read by each decision's own script, so a call
 * costs one round trip. Time comes from Redis {@code TIME}, or from the factory's explicit clock in tests.
 * While Redis fails, no hold is read or written (logged): the limiter's failure policy decides every permit.
 * A limiter that is not the factory's (a registry of its own on another backend) keeps its holds in the
 * process, as the memory backend does, with a warning.
 */
public final class RedisHolds implements Holds {

    private static final Log logger = LogFactory.getLog(RedisHolds.class);

    private final RedisRateLimiterFactory factory;

    private final MemoryHolds others;

    /** @param factory the factory of the limiters held */
    public RedisHolds(RedisRateLimiterFactory factory) {
        this(factory, LimiterClock.system());
    }

    /**
     * @param factory the factory of the limiters held
     * @param clock the time of the holds of limiters not of {@code factory}, kept in the process
     */
    public RedisHolds(RedisRateLimiterFactory factory, LimiterClock clock) {
        this.factory = factory;
        this.others = new MemoryHolds(clock);
    }

    @Override
    public HoldingLimiter of(RateLimiter limiter) {
        HoldingLimiter holding = HoldingLimiter.of(limiter, factory);
        if (holding == null) {
            logger.warn("Outgoing calls of limiter '" + limiter.name() + "' keep the holds upstreams ask for in this process only: "
                    + "it is not one of the Redis factory's limiters, so it cannot read holds in Redis");
            return others.of(limiter);
        }
        return holding;
    }
}
