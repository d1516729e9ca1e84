package dev.limiter.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.limiter.Algorithm;
import dev.limiter.RateLimiter;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.internal.algorithm.Scripts;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A Redis limiter's decisions that respect holds ({@link RedisRateLimiterFactory#holding}): the hold of a
 * key is {@code <prefix>:{<limiter>:<key>}:companion:hold}, in the hash tag of the key's state, holding the
 * end of the hold (Redis time, microseconds) and expiring with it. Each decision is one EVALSHA of the
 * algorithm's script with the hold as its second key; storing a hold is one EVALSHA of {@code hold.lua}.
 * While Redis fails, holds are neither read nor written (logged) and the failure policy decides.
 */
final class RedisHoldingLimiter implements HoldingLimiter {

    private static final Log logger = LogFactory.getLog(RedisHoldingLimiter.class);

    /** What the hold keys are, among a limiter's companion keys. */
    static final String KIND = "hold";

    /** Stores a hold unless a longer one is in place. */
    static final LuaScript HOLD = LuaScript.of(Scripts.assemble("/dev/limiter/redis/hold.lua", Algorithm.GCRA));

    /** Reads how long a hold has left. */
    static final LuaScript REMAINING = LuaScript.of(Scripts.assemble("/dev/limiter/redis/hold-remaining.lua", Algorithm.GCRA));

    private final RedisRateLimiter limiter;

    RedisHoldingLimiter(RedisRateLimiter limiter) {
        this.limiter = limiter;
    }

    @Override
    public RateLimiter limiter() {
        return limiter;
    }

    @Override
    public Answer tryAcquire(String key, long permits) {
        return limiter.tryAcquireUnlessHeld(key, permits, limiter.companionKey(key, KIND));
    }

    @Override
    public CompletionStage<Answer> tryAcquireAsync(String key, long permits) {
        return limiter.tryAcquireUnlessHeldAsync(key, permits, limiter.companionKey(key, KIND));
    }

    @Override
    public Duration holdRemaining(String key) {
        if (!limiter.redisAvailable()) {
            return Duration.ZERO;
        }
        try {
            long left = first(limiter.scripts().execute(REMAINING, limiter.companionKey(key, KIND), new Object[] { now() }));
            return (left <= 0) ? Duration.ZERO : Duration.ofNanos(left * 1_000L);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not read the hold of limiter '" + limiter.name() + "' from Redis; calling as if not held: " + ex);
            return Duration.ZERO;
        }
    }

    @Override
    public void hold(String key, Duration hold) {
        long micros = Math.max(1, hold.toNanos() / 1_000L);
        if (!limiter.redisAvailable()) {
            logger.warn("Redis is unavailable: the hold of " + hold.toMillis() + " ms the upstream asked of limiter '" + limiter.name()
                    + "' is not stored, other instances will not see it");
            return;
        }
        try {
            limiter.scripts().execute(HOLD, limiter.companionKey(key, KIND), new Object[] { now(), Long.toString(micros) });
        }
        catch (RuntimeException ex) {
            logger.warn("Could not store in Redis the hold of " + hold.toMillis() + " ms the upstream asked of limiter '" + limiter.name()
                    + "'; other instances will not see it: " + ex);
        }
    }

    @Override
    public boolean blocks() {
        return true;
    }

    private String now() {
        Long now = limiter.scriptNow();
        return (now != null) ? Long.toString(now) : "";
    }

    private static long first(List<?> reply) {
        return ((Number) reply.get(0)).longValue();
    }

    @Override
    public String toString() {
        return "RedisHoldingLimiter[" + limiter + "]";
    }
}
