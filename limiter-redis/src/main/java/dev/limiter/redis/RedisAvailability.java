package dev.limiter.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Whether Redis is usable, shared by every limiter of one factory: a circuit breaker that opens on
 * evidence of an outage, not on one slow call. Evidence is a connection that is refused, lost or
 * absent, Redis saying it cannot serve (LOADING, MASTERDOWN, CLUSTERDOWN, READONLY), or calls that
 * have kept failing for {@code outageAfter} with none succeeding. A call that fails without such
 * evidence gets the failure policy's answer for itself alone, and the next call goes to Redis again.
 *
 * <p>While open, limiters do not call Redis (no request waits on a dead server) and one background
 * thread probes it until a call like the one that failed succeeds. The probe repeats what failed
 * instead of pinging: in a Redis Cluster whose master died, the other masters answer PING while the
 * dead master's slots are still unreachable.
 */
final class RedisAvailability {

    private static final Log logger = LogFactory.getLog(RedisAvailability.class);

    /** A script that touches nothing, run on the failed call's key; see probe.lua. */
    private static final RedisScript<Long> PROBE = RedisScript.of(new ClassPathResource("dev/limiter/redis/probe.lua"), Long.class);

    /** Error replies by which Redis says it cannot serve now, whatever the next call does. */
    private static final List<String> UNSERVING = List.of("LOADING", "MASTERDOWN", "CLUSTERDOWN", "READONLY");

    private final RedisOperations<String, String> redis;

    private final Duration probeInterval;

    private final long outageAfterNanos;

    private final @Nullable Runnable recoveryAction;

    private final Background background;

    private final LongSupplier nanoTime;

    private final AtomicBoolean available = new AtomicBoolean(true);

    /** When the current run of failed calls began (nanoTime); {@link #NOT_FAILING} after a success. */
    private final AtomicLong failingSince = new AtomicLong(NOT_FAILING);

    private static final long NOT_FAILING = Long.MIN_VALUE;

    /** Key of the call whose failure opened the breaker; null when it was for no key (start-up): then the probe pings. */
    private volatile @Nullable String failedKey;

    /**
     * @param outageAfter how long calls must keep failing, none succeeding, before Redis counts as out
     * @param recoveryAction run after each probe that finds Redis still failing; may be null
     */
    RedisAvailability(RedisOperations<String, String> redis, Duration probeInterval, Duration outageAfter,
            @Nullable Runnable recoveryAction, Background background, LongSupplier nanoTime) {
        this.redis = redis;
        this.probeInterval = probeInterval;
        this.outageAfterNanos = outageAfter.toNanos();
        this.recoveryAction = recoveryAction;
        this.background = background;
        this.nanoTime = nanoTime;
    }

    /** Whether limiters should call Redis now. */
    boolean available() {
        return available.get();
    }

    /** Reports a call Redis answered: the run of failures, if any, is over. */
    void succeeded() {
        // Read first: a write on every decision would bounce the cache line between cores.
        if (failingSince.get() != NOT_FAILING) {
            failingSince.set(NOT_FAILING);
        }
    }

    /**
     * Reports a failed call, and judges whether Redis is out: then limiters stop calling it until a
     * probe succeeds.
     *
     * @param redisKey the key of the call, so that the probe goes where the call went; null for a
     *     call for no key in particular
     * @return whether Redis now counts as out; false means this call alone failed
     */
    boolean failed(@Nullable String redisKey, RuntimeException ex) {
        if (!available.get()) {
            return true;
        }
        String evidence = outageEvidence(ex);
        if (evidence == null) {
            long now = nanoTime.getAsLong();
            long since = failingSince.get();
            if (since == NOT_FAILING) {
                // The first failure after a success: one slow or failed call is no outage.
                if (failingSince.compareAndSet(NOT_FAILING, now) && outageAfterNanos > 0) {
                    debug(ex);
                    return false;
                }
                since = failingSince.get();
            }
            if (since == NOT_FAILING || now - since < outageAfterNanos) {
                debug(ex);
                return false;
            }
            evidence = "no call succeeded for " + Duration.ofNanos(now - since).toMillis() + " ms";
        }
        open(redisKey, evidence, ex);
        return true;
    }

    /**
     * Opens the breaker at once, such as when Redis cannot be reached at start-up.
     *
     * @param redisKey the key a probe should use, or null to ping
     */
    void unavailable(@Nullable String redisKey, String evidence, RuntimeException ex) {
        if (available.get()) {
            open(redisKey, evidence, ex);
        }
    }

    private void open(@Nullable String redisKey, String evidence, RuntimeException ex) {
        if (available.compareAndSet(true, false)) {
            failedKey = redisKey;
            Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
            logger.warn("Redis is unavailable (" + evidence + "); rate limiters follow their failure policy until it answers again "
                    + "(probing every " + probeInterval.toMillis() + " ms): " + ex + ((cause != ex) ? " (" + cause + ")" : ""));
            background.repeat(this::probe, probeInterval);
        }
    }

    private static void debug(RuntimeException ex) {
        if (logger.isDebugEnabled()) {
            logger.debug("A Redis call failed; its failure policy decided it alone, Redis stays in use: " + ex);
        }
    }

    /**
     * What in {@code ex} shows that Redis is out, not merely slow once; null when nothing does. Matched
     * on Spring's and the JDK's types and on messages, so that the core needs no particular client.
     */
    static @Nullable String outageEvidence(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof QueryTimeoutException || cause.getClass().getName().endsWith("CommandTimeoutException")) {
                // A slow answer is no evidence, wherever in the chain a connection error stands.
                return null;
            }
        }
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            String message = (cause.getMessage() != null) ? cause.getMessage() : "";
            String name = cause.getClass().getName();
            if (cause instanceof RedisConnectionFailureException || cause instanceof IOException
                    || name.endsWith("RedisConnectionException")) {
                return "connection failed";
            }
            String lower = message.toLowerCase(Locale.ROOT);
            if (lower.contains("not connected") || lower.contains("connection closed") || lower.contains("connection reset")
                    || lower.contains("connection refused") || lower.contains("disconnected")) {
                return "connection lost";
            }
            for (String reply : UNSERVING) {
                if (message.startsWith(reply) || message.contains("-" + reply + " ") || message.contains(" " + reply + " ")) {
                    return "Redis answered " + reply;
                }
            }
        }
        return null;
    }

    /** Returns false once Redis answers, which ends the repetition. */
    private boolean probe() {
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
            return true;
        }
        failingSince.set(NOT_FAILING);
        available.set(true);
        logger.info("Redis answers again; rate limiters use it again");
        return false;
    }

    private void recover() {
        if (recoveryAction == null) {
            return;
        }
        try {
            recoveryAction.run();
        }
        catch (RuntimeException ex) {
            // An exception would end the probing for good.
            logger.debug("Recovery action after a failed Redis probe failed", ex);
        }
    }

    /** How long failures have lasted so far, for tests. */
    long failingForMillis() {
        long since = failingSince.get();
        return (since == NOT_FAILING) ? -1 : TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - since);
    }
}
