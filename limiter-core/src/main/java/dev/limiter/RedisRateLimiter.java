package dev.limiter;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.RedisOperations;

/**
 * A limiter whose state lives in Redis: each decision is one EVALSHA of the algorithm's script.
 * When Redis fails, the fallback limiter decides, so an outage never reaches the caller.
 */
final class RedisRateLimiter implements RateLimiter {

    private static final Log logger = LogFactory.getLog(RedisRateLimiter.class);

    private final String name;

    private final Algorithm algorithm;

    private final LimitSpec spec;

    private final RedisOperations<String, String> redis;

    private final LuaScript script;

    private final String keyHead;

    private final String keyTail;

    private final String limit;

    private final String window;

    private final String burst;

    private final LimiterClock clock;

    private final RateLimiter fallback;

    private final AtomicBoolean failing = new AtomicBoolean();

    RedisRateLimiter(String name, Algorithm algorithm, LimitSpec spec, RedisOperations<String, String> redis, String keyPrefix,
            LimiterClock clock, RateLimiter fallback) {
        this.name = RedisKeys.checkName(name);
        this.algorithm = algorithm;
        this.spec = spec;
        this.redis = redis;
        this.script = LuaScript.of(algorithm);
        this.keyHead = RedisKeys.head(RedisKeys.checkPrefix(keyPrefix), name);
        this.keyTail = RedisKeys.tail(algorithm);
        this.limit = Long.toString(spec.limit());
        this.window = Long.toString(spec.windowMicros());
        this.burst = Long.toString(spec.burst());
        this.clock = clock;
        this.fallback = fallback;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Algorithm algorithm() {
        return algorithm;
    }

    @Override
    public LimitSpec spec() {
        return spec;
    }

    /** The Redis key holding the state of {@code key}. */
    String redisKey(String key) {
        return keyHead + RedisKeys.escape(key) + keyTail;
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
        InMemoryRateLimiter.checkPermits(permits);
        String redisKey = redisKey(key);
        List<?> reply;
        try {
            // Empty time: the script reads Redis TIME, so application clocks never matter.
            String now = (clock != null) ? Long.toString(clock.nowMicros()) : "";
            reply = redis.execute(script, List.of(redisKey), now, limit, window, burst, Long.toString(permits));
        }
        catch (RuntimeException ex) {
            if (fallback == null) {
                throw ex;
            }
            if (failing.compareAndSet(false, true)) {
                logger.warn("Redis failed for limiter '" + name + "'; deciding in memory until it answers again", ex);
            }
            return fallback.tryAcquire(key, permits);
        }
        if (failing.compareAndSet(true, false)) {
            logger.info("Redis answers again for limiter '" + name + "'");
        }
        return Decision.of(number(reply, 0) == 1, algorithm.capacity(spec), number(reply, 1), number(reply, 2), number(reply, 3));
    }

    private static long number(List<?> reply, int index) {
        return ((Number) reply.get(index)).longValue();
    }

    @Override
    public String toString() {
        return "RedisRateLimiter[" + name + ", " + algorithm + ", " + spec + "]";
    }
}
