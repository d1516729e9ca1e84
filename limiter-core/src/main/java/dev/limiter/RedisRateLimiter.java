package dev.limiter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.RedisOperations;

/**
 * A limiter whose state lives in Redis: each decision is one EVALSHA of the algorithm's script.
 * When Redis fails, the fallback limiter decides, so an outage never reaches the caller.
 */
final class RedisRateLimiter implements RateLimiter {

    private static final Log logger = LogFactory.getLog(RedisRateLimiter.class);

    /** Distinguishes this process's sliding-log entries from every other instance's. */
    private static final String INSTANCE = randomId();

    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final String name;

    private final RateLimiterConfig config;

    private final RedisOperations<String, String> redis;

    private final LuaScript script;

    private final String keyHead;

    private final String keyTail;

    /** ARGV from index 2 on: permits (filled per call), max-wait, parameter, limits. */
    private final String[] argsTemplate;

    private final LimiterClock clock;

    private final RateLimiter fallback;

    private final AtomicBoolean failing = new AtomicBoolean();

    RedisRateLimiter(String name, RateLimiterConfig config, RedisOperations<String, String> redis, String keyPrefix, LimiterClock clock,
            RateLimiter fallback) {
        this.name = RedisKeys.checkName(name);
        this.config = config;
        this.redis = redis;
        this.script = LuaScript.of(config.algorithm());
        this.keyHead = RedisKeys.head(RedisKeys.checkPrefix(keyPrefix), name);
        this.keyTail = RedisKeys.tail(config.algorithm()) + ":" + fingerprint(config);
        this.argsTemplate = argsTemplate(config);
        this.clock = clock;
        this.fallback = fallback;
    }

    private static String[] argsTemplate(RateLimiterConfig config) {
        List<LimitSpec> limits = config.limits();
        String[] args = new String[4 + 3 * limits.size()];
        args[2] = Long.toString(config.maxWaitMicros());
        args[3] = (config.algorithm() == Algorithm.SLIDING_WINDOW) ? Integer.toString(config.subWindows()) : "";
        for (int i = 0; i < limits.size(); i++) {
            LimitSpec limit = limits.get(i);
            args[4 + 3 * i] = Long.toString(limit.limit());
            args[5 + 3 * i] = Long.toString(limit.windowMicros());
            args[6 + 3 * i] = Long.toString(limit.burst());
        }
        return args;
    }

    /**
     * Short digest of the configuration, part of every key: after a change of limits the old state
     * is simply not read again (and expires), so it can never enforce the old limits.
     */
    static String fingerprint(RateLimiterConfig config) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(String.join(",", argsTemplate(config)).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }

    private static String randomId() {
        byte[] bytes = new byte[9];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RateLimiterConfig config() {
        return config;
    }

    /** The Redis key holding the state of {@code key}. */
    String redisKey(String key) {
        return keyHead + RedisKeys.escape(key) + keyTail;
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
        InMemoryRateLimiter.checkPermits(permits);
        String redisKey = redisKey(key);
        Object[] args = argsTemplate.clone();
        // Empty time: the script reads Redis TIME, so application clocks never matter.
        args[0] = (clock != null) ? Long.toString(clock.nowMicros()) : "";
        args[1] = Long.toString(permits);
        if (config.algorithm() == Algorithm.SLIDING_LOG) {
            args[3] = INSTANCE + Long.toString(SEQUENCE.incrementAndGet(), 36) + ".";
        }
        List<?> reply;
        try {
            reply = redis.execute(script, List.of(redisKey), args);
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
        return Decision.of(config, number(reply, 0), number(reply, 1), number(reply, 2), number(reply, 3), number(reply, 4),
                number(reply, 5), number(reply, 6));
    }

    private static long number(List<?> reply, int index) {
        return ((Number) reply.get(index)).longValue();
    }

    @Override
    public String toString() {
        return "RedisRateLimiter[" + name + ", " + config + "]";
    }
}
