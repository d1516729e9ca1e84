package dev.limiter.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.limiter.LimiterClock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Counts the application instances that share the limits: each announces itself in Redis with a
 * heartbeat (one script call every interval, never per decision) and counts as alive for three
 * intervals after it. While Redis fails, the count last seen is what each limit is divided by.
 */
final class InstanceRegistry {

    private static final Log logger = LogFactory.getLog(InstanceRegistry.class);

    static final RedisScript<Long> HEARTBEAT = RedisScript.of(new ClassPathResource("dev/limiter/redis/instances.lua"), Long.class);

    /** Heartbeats an instance may miss before it no longer counts. */
    static final int MISSED_HEARTBEATS = 3;

    private final RedisOperations<String, String> redis;

    private final String key;

    private final String id = UUID.randomUUID().toString();

    private final Duration interval;

    private final @Nullable LimiterClock clock;

    /** The number of instances configured instead of counted, or 0 to count them. */
    private final int configured;

    private volatile int counted = 1;

    private volatile boolean leaving;

    /**
     * @param clock time passed to the script, or null to use Redis TIME
     * @param configured instances to divide by instead of those counted, or 0 to count them
     */
    InstanceRegistry(RedisOperations<String, String> redis, String keyPrefix, Duration interval, @Nullable LimiterClock clock,
            int configured) {
        this.redis = redis;
        // A tag of its own: no limiter's key can equal it, since theirs hold "<name>:" inside the braces.
        this.key = keyPrefix + ":{instances}";
        this.interval = interval;
        this.clock = clock;
        this.configured = configured;
    }

    /** How many instances share each limit: as configured, or as last counted (at least this one). */
    int instances() {
        return (configured > 0) ? configured : counted;
    }

    /** The instances last counted in Redis, at least this one. */
    int counted() {
        return counted;
    }

    /** Whether the number of instances is configured rather than counted. */
    boolean isConfigured() {
        return configured > 0;
    }

    String key() {
        return key;
    }

    /** Sends one heartbeat now; true to keep beating. Failures are quiet: the last count stands. */
    boolean beat() {
        if (leaving) {
            return false;
        }
        try {
            Long alive = redis.execute(HEARTBEAT, List.of(key), id, Long.toString(ttlMicros()), now());
            if (alive != null) {
                counted = (int) Math.max(1, Math.min(Integer.MAX_VALUE, alive));
            }
        }
        catch (RuntimeException ex) {
            logger.debug("Rate limiter instance heartbeat failed; the last count (" + counted + ") stands", ex);
        }
        return !leaving;
    }

    /** Removes this instance from the count at once (shutdown); failures are ignored. */
    void leave() {
        leaving = true;
        try {
            redis.execute(HEARTBEAT, List.of(key), id, "0", now());
        }
        catch (RuntimeException ex) {
            logger.debug("Could not remove this instance from the rate limiters' count; it expires", ex);
        }
    }

    Duration interval() {
        return interval;
    }

    private long ttlMicros() {
        return interval.toNanos() / 1_000 * MISSED_HEARTBEATS;
    }

    private String now() {
        return (clock != null) ? Long.toString(clock.nowMicros()) : "";
    }
}
