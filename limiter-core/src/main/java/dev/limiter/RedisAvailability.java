package dev.limiter;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Whether Redis is usable, shared by every limiter of one factory. After a failure, limiters stop
 * calling Redis at once (so no request waits on a dead server) and one background thread probes it
 * until a call like the one that failed succeeds; then they use it again.
 *
 * <p>The probe repeats what failed instead of pinging: in a Redis Cluster whose master died, the
 * other masters answer PING while the dead master's slots are still unreachable, and a probe that
 * asked them would send limiters back to Redis, to fail again, several times a second until the
 * client reaches the promoted replica.
 */
final class RedisAvailability {

    private static final Log logger = LogFactory.getLog(RedisAvailability.class);

    /** A script that touches nothing, run on the failed call's key; see probe.lua. */
    private static final RedisScript<Long> PROBE = RedisScript.of(new ClassPathResource("dev/limiter/probe.lua"), Long.class);

    private final RedisOperations<String, String> redis;

    private final Duration probeInterval;

    private final Runnable recoveryAction;

    private final AtomicBoolean available = new AtomicBoolean(true);

    /** Key of the call whose failure started the outage; null when it was for no key (start-up): then the probe pings. */
    private volatile String failedKey;

    private final Object probeLock = new Object();

    private ScheduledExecutorService prober;

    private ScheduledFuture<?> probe;

    /**
     * @param recoveryAction run after each probe that finds Redis still failing; may be null
     */
    RedisAvailability(RedisOperations<String, String> redis, Duration probeInterval, Runnable recoveryAction) {
        this.redis = redis;
        this.probeInterval = probeInterval;
        this.recoveryAction = recoveryAction;
    }

    Duration probeInterval() {
        return probeInterval;
    }

    Runnable recoveryAction() {
        return recoveryAction;
    }

    /** Whether limiters should call Redis now. */
    boolean available() {
        return available.get();
    }

    /**
     * Reports a failed call: limiters stop calling Redis until a probe succeeds.
     *
     * @param redisKey the key of the call, so that the probe goes where the call went; null for a
     *     call for no key in particular
     */
    void failed(String redisKey, RuntimeException ex) {
        if (available.compareAndSet(true, false)) {
            failedKey = redisKey;
            Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
            logger.warn("Redis failed; rate limiters follow their failure policy until it answers again (probing every "
                    + probeInterval.toMillis() + " ms): " + ex + ((cause != ex) ? " (" + cause + ")" : ""));
            startProbing();
        }
    }

    private void startProbing() {
        synchronized (probeLock) {
            if (prober == null) {
                prober = Executors.newSingleThreadScheduledExecutor((task) -> {
                    Thread thread = new Thread(task, "limiter-redis-probe");
                    thread.setDaemon(true);
                    return thread;
                });
            }
            if (probe == null || probe.isDone()) {
                long interval = Math.max(1, probeInterval.toMillis());
                probe = prober.scheduleWithFixedDelay(this::probe, interval, interval, TimeUnit.MILLISECONDS);
            }
        }
    }

    private void probe() {
        String key = failedKey;
        try {
            if (key != null) {
                redis.execute(PROBE, List.of(key));
            }
            else {
                redis.execute((RedisCallback<String>) connection -> connection.ping());
            }
        }
        catch (RuntimeException ex) {
            recover();
            return;
        }
        synchronized (probeLock) {
            if (probe != null) {
                probe.cancel(false);
            }
        }
        available.set(true);
        logger.info("Redis answers again; rate limiters use it again");
    }

    private void recover() {
        if (recoveryAction == null) {
            return;
        }
        try {
            recoveryAction.run();
        }
        catch (RuntimeException ex) {
            // An exception would end the scheduled probe for good.
            logger.debug("Recovery action after a failed Redis probe failed", ex);
        }
    }

    /** Stops probing; for shutdown. */
    void close() {
        synchronized (probeLock) {
            if (prober != null) {
                prober.shutdownNow();
            }
        }
    }
}
