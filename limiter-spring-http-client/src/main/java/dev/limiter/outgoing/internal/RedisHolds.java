package dev.limiter.outgoing.internal;

import java.time.Duration;
import java.util.List;

import dev.limiter.LimiterClock;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Holds shared by every instance through Redis: one key per limiter and key,
 * {@code <prefix>:{<limiter>:<key>}:hold} (the hash tag of the limiter's own keys), holding the end of
 * the hold and expiring with it. Time comes from Redis {@code TIME}, or from an explicit clock in tests.
 * While Redis fails, no hold is read or written (logged): the limiter's failure policy still decides
 * every permit.
 */
public final class RedisHolds implements Holds {

    private static final Log logger = LogFactory.getLog(RedisHolds.class);

    private static final RedisScript<Long> REMAINING = script("hold-remaining.lua");

    private static final RedisScript<Long> HOLD = script("hold.lua");

    private static final String KIND = "hold";

    private final RedisOperations<String, String> redis;

    private final RedisRateLimiterFactory keys;

    private final @Nullable LimiterClock clock;

    /**
     * @param keys the factory of the limiters held, whose key prefix and escaping the hold keys follow
     * @param clock explicit time for tests; null to take Redis TIME
     */
    public RedisHolds(RedisOperations<String, String> redis, RedisRateLimiterFactory keys, @Nullable LimiterClock clock) {
        this.redis = redis;
        this.keys = keys;
        this.clock = clock;
    }

    @Override
    public Duration remaining(String limiter, String key) {
        try {
            Long left = redis.execute(REMAINING, List.of(keys.companionKey(limiter, key, KIND)), now());
            return (left == null || left <= 0) ? Duration.ZERO : Duration.ofNanos(left * 1_000L);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not read the hold of limiter '" + limiter + "' from Redis; calling as if not held: " + ex);
            return Duration.ZERO;
        }
    }

    @Override
    public void hold(String limiter, String key, Duration hold) {
        long micros = Math.max(1, hold.toNanos() / 1_000L);
        try {
            redis.execute(HOLD, List.of(keys.companionKey(limiter, key, KIND)), now(), Long.toString(micros));
        }
        catch (RuntimeException ex) {
            logger.warn("Could not store in Redis the hold of " + hold.toMillis() + " ms the upstream asked of limiter '" + limiter
                    + "'; other instances will not see it: " + ex);
        }
    }

    @Override
    public boolean blocks() {
        return true;
    }

    private String now() {
        return (clock != null) ? Long.toString(clock.nowMicros()) : "";
    }

    private static RedisScript<Long> script(String name) {
        return RedisScript.of(new ClassPathResource("dev/limiter/outgoing/internal/" + name), Long.class);
    }
}
