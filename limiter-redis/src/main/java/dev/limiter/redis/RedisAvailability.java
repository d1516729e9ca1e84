package dev.limiter.redis;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Whether Redis is usable, shared by every limiter of one factory: a circuit breaker that opens on
 * evidence of an outage, not on one slow call or one dropped connection. Evidence is a connection
 * that cannot be made, Redis saying it cannot serve decisions (LOADING, MASTERDOWN, CLUSTERDOWN,
 * READONLY, OOM, MISCONF, NOAUTH, WRONGPASS, NOPERM), or calls that have kept failing for
 * {@code outageAfter} with none succeeding. A call that fails without such evidence, such as one in
 * flight on a connection that dropped, gets the failure policy's answer for itself alone, and the next
 * call goes to Redis again over the re-established connection.
 *
 * <p>While open, limiters do not call Redis (no request waits on a dead server) and one background
 * thread probes it until a call like the one that failed would succeed. The probe repeats what failed
 * instead of pinging: in a Redis Cluster whose master died, the other masters answer PING while the
 * dead master's slots are still unreachable; and it is a script that may write, as decisions are, so
 * that an out-of-memory or read-only Redis stays out until decisions can succeed again. Once the probe
 * succeeds, the {@link Settlement} is made (permits the failure policy admitted are charged to Redis,
 * and the other instances have done the same) before limiters decide on Redis again.
 */
final class RedisAvailability {

    private static final Log logger = LogFactory.getLog(RedisAvailability.class);

    /** A script that touches nothing, run on the failed call's key; see probe.lua. */
    private static final RedisScript<Long> PROBE = RedisScript.of(new ClassPathResource("dev/limiter/redis/probe.lua", RedisAvailability.class.getClassLoader()), Long.class);

    /** Error replies by which Redis says it cannot serve decisions now, whatever the next call does. */
    private static final List<String> UNSERVING = List.of("LOADING", "MASTERDOWN", "CLUSTERDOWN", "READONLY", "OOM", "MISCONF", "NOAUTH",
            "WRONGPASS", "NOPERM");

    /**
     * What must be settled before limiters decide on Redis again, and what a failed call left owing.
     * Run on the background thread only.
     */
    interface Settlement {

        /** Whether permits admitted without Redis still wait to be charged. */
        boolean owes();

        /** Charges what is owed; null when done, else the failure that stopped it. */
        @Nullable RuntimeException charge();

        /**
         * After an outage, once nothing is owed here: whether the other instances alive owe nothing
         * either since this one returned; asked again every probe interval until true.
         */
        boolean settled();

        /** A new outage began: what {@link #settled} learned of the last one no longer holds. */
        void outage();

        /**
         * Whether the other instances have had the time to find this one silent, its heartbeats
         * failing, and keep within their shares since; true when there are none.
         */
        boolean foundSilent();

        /**
         * Whether this instance's own heartbeats have failed for so long that another instance may be
         * silent without this one knowing: then it keeps within its shares; false when there are none.
         */
        boolean uninformed();
    }

    /** Settles nothing: for a factory that has nothing to charge. */
    static final Settlement NOTHING_OWED = new Settlement() {

        @Override
        public boolean owes() {
            return false;
        }

        @Override
        public @Nullable RuntimeException charge() {
            return null;
        }

        @Override
        public boolean settled() {
            return true;
        }

        @Override
        public void outage() {
        }

        @Override
        public boolean foundSilent() {
            return true;
        }

        @Override
        public boolean uninformed() {
            return false;
        }
    };

    private final RedisOperations<String, String> redis;

    private final Duration probeInterval;

    private final long outageAfterNanos;

    private final @Nullable Runnable recoveryAction;

    private final Background background;

    private final LongSupplier nanoTime;

    private final Settlement settlement;

    /** Where Redis is, for messages: host:port, nodes, or a socket. */
    private final String address;

    private final Supplier<@Nullable Throwable> reconnectFailure;

    /** Key a probe for no key in particular declares, so that it is a script like the decisions. */
    private final String defaultProbeKey;

    private final AtomicBoolean available = new AtomicBoolean(true);

    /** Held to decide without Redis, and to return to it, so that no permit owed escapes the charge. */
    private final ReadWriteLock outageLock = new ReentrantReadWriteLock();

    /** From an outage until every instance has charged what it admitted without Redis: see {@link #settling()}. */
    private volatile boolean settling;

    /** Why Redis is out, for health; null while it is in use. */
    private volatile @Nullable String reason;

    /** Whether a charge of what failed calls left owing is scheduled on the background thread. */
    private final AtomicBoolean chargeScheduled = new AtomicBoolean();

    /** When the current run of failed calls began (nanoTime); {@link #NOT_FAILING} after a success. */
    private final AtomicLong failingSince = new AtomicLong(NOT_FAILING);

    private static final long NOT_FAILING = Long.MIN_VALUE;

    /** Key of the call whose failure opened the breaker; null when it was for no key (start-up): then the probe declares the default key. */
    private volatile @Nullable String failedKey;

    /**
     * @param outageAfter how long calls must keep failing, none succeeding, before Redis counts as out
     * @param recoveryAction run after each probe that finds Redis still failing; may be null
     */
    RedisAvailability(RedisOperations<String, String> redis, Duration probeInterval, Duration outageAfter,
            @Nullable Runnable recoveryAction, Background background, LongSupplier nanoTime) {
        this(redis, probeInterval, outageAfter, recoveryAction, background, nanoTime, NOTHING_OWED, RedisAddress.of(redis), "limiter:{probe}",
                () -> null);
    }

    /**
     * @param settlement what must be settled before limiters use Redis again after an outage
     * @param address where Redis is, for messages
     * @param defaultProbeKey the key a probe declares when no call for a key failed (start-up)
     * @param reconnectFailure why the client last failed to re-establish a dropped connection, or null
     *     when a connection is up since: calls meanwhile only hear "not connected"
     */
    RedisAvailability(RedisOperations<String, String> redis, Duration probeInterval, Duration outageAfter,
            @Nullable Runnable recoveryAction, Background background, LongSupplier nanoTime, Settlement settlement, String address,
            String defaultProbeKey, Supplier<@Nullable Throwable> reconnectFailure) {
        this.redis = redis;
        this.probeInterval = probeInterval;
        this.outageAfterNanos = outageAfter.toNanos();
        this.recoveryAction = recoveryAction;
        this.background = background;
        this.nanoTime = nanoTime;
        this.settlement = settlement;
        this.address = address;
        this.defaultProbeKey = defaultProbeKey;
        this.reconnectFailure = reconnectFailure;
    }

    /** Why Redis is out (the evidence and what Redis or the client said), or null while it is in use. */
    @Nullable String reason() {
        return reason;
    }

    /** Where Redis is: host:port, the nodes of a cluster, the master and sentinels, or a socket. */
    String address() {
        return address;
    }

    /**
     * Reports permits admitted without Redis while it is in use (a call that failed alone): they are
     * charged on the background thread at once. While Redis is out, the probe's settlement charges them.
     */
    void owed() {
        if (available.get() && chargeScheduled.compareAndSet(false, true)) {
            background.repeat(this::chargeOwed, Duration.ZERO, probeInterval);
        }
    }

    /** Charges what failed calls left owing; false once nothing is owed or the probe took over. */
    private boolean chargeOwed() {
        while (available.get()) {
            RuntimeException failure = settlement.charge();
            if (failure != null) {
                failed(null, failure);
                if (available.get()) {
                    // Charged again after an interval.
                    return true;
                }
                break;
            }
            chargeScheduled.set(false);
            // Owed meanwhile by a caller that found this charge still scheduled: charge that too.
            if (!settlement.owes() || !chargeScheduled.compareAndSet(false, true)) {
                return false;
            }
        }
        // Out: the probe's settlement charges what is owed.
        chargeScheduled.set(false);
        return false;
    }

    /**
     * Whether the client rejected a call without sending it, because its connection dropped and is
     * not made again yet: such a call can be sent again without counting twice.
     */
    static boolean neverSent(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains("Currently not connected")) {
                return true;
            }
        }
        return false;
    }

    /** Whether Redis is in use and nothing says its connection cannot be made again: worth a short wait for it. */
    boolean mayReconnect() {
        return available.get() && reconnectFailure.get() == null;
    }

    /**
     * Another instance alive missed its heartbeats: cut off from Redis, it decides by its shares (or it
     * died). Until it has said it charged what it admitted, this one keeps within its shares too, as
     * after an outage of its own.
     */
    void othersSilent() {
        outageLock.writeLock().lock();
        try {
            if (!available.get() || settling) {
                return;
            }
            settling = true;
            settlement.outage();
        }
        finally {
            outageLock.writeLock().unlock();
        }
        logger.debug("Another rate limiter instance stopped beating; limiters keep within their shares until it has charged");
        background.repeat(this::probe, probeInterval);
    }

    /**
     * Whether a call Redis did not answer may be admitted by the local policy's share: once the other
     * instances have found this one silent and keep within their own. Before then, another instance
     * deciding on Redis could take the same permit.
     */
    boolean othersKeepToShares() {
        return settlement.foundSilent();
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
        Throwable reconnect = reconnectFailure.get();
        if (evidence == null && reconnect != null && outageEvidence(reconnect) != null) {
            // The connection dropped and cannot be made again: this is no drop but an outage.
            ex = new IllegalStateException("the connection dropped and could not be made again: " + describe(reconnect), reconnect);
            evidence = outageEvidence(reconnect);
        }
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
            reason = evidence + ": " + describe(ex);
            settling = true;
            settlement.outage();
            logger.warn("Redis at " + address + " is unavailable (" + reason + "); rate limiters follow their failure policy until it "
                    + "answers again (probing every " + probeInterval.toMillis() + " ms). To run without Redis on purpose, set "
                    + "limiter.backend=memory");
            background.repeat(this::probe, probeInterval);
        }
    }

    /** The exception and, when another, its most specific cause: what Redis or the client said. */
    private static String describe(Throwable ex) {
        Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
        return ex.getMessage() + ((cause != ex && cause.getMessage() != null && !String.valueOf(ex.getMessage()).contains(cause.getMessage()))
                ? " (" + cause.getMessage() + ")" : "");
    }

    private static void debug(RuntimeException ex) {
        if (logger.isDebugEnabled()) {
            logger.debug("A Redis call failed; its failure policy decided it alone, Redis stays in use: " + ex);
        }
    }

    /**
     * What in {@code ex} shows that Redis is out, not merely slow once or reached over a connection
     * that dropped; null when nothing does. Matched on Spring's and the JDK's types and on messages, so
     * that the core needs no particular client.
     */
    static @Nullable String outageEvidence(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof QueryTimeoutException || cause.getClass().getName().endsWith("CommandTimeoutException")) {
                // A slow answer is no evidence, wherever in the chain a connection error stands.
                return null;
            }
        }
        // What Redis answered first, wherever it stands in the chain: a failed connection may hold it (NOAUTH).
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            String message = (cause.getMessage() != null) ? cause.getMessage() : "";
            for (String reply : UNSERVING) {
                if (message.startsWith(reply) || message.contains("-" + reply + " ") || message.contains(" " + reply + " ")) {
                    return "Redis answered " + reply;
                }
            }
        }
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            String lower = (cause.getMessage() != null) ? cause.getMessage().toLowerCase(Locale.ROOT) : "";
            if (cause instanceof RedisConnectionFailureException || cause.getClass().getName().endsWith("RedisConnectionException")
                    || lower.contains("connection refused") || lower.contains("unable to connect")) {
                // No connection can be made: not a dropped one, which the client makes again at once.
                return "cannot connect";
            }
        }
        return null;
    }

    /**
     * While Redis is out, probes it; once it answers, settles the outage: charges what this instance
     * admitted without Redis, says so, and returns to Redis, within its shares until the other
     * instances alive have said the same since ({@link #settling()}). Returns false once settled (or
     * out again, when a new probe has begun), which ends the repetition.
     */
    private boolean probe() {
        try {
            if (!available.get()) {
                String key = failedKey;
                try {
                    redis.execute(PROBE, List.of((key != null) ? key : defaultProbeKey));
                }
                catch (RuntimeException ex) {
                    Throwable reconnect = reconnectFailure.get();
                    Throwable why = (outageEvidence(ex) == null && reconnect != null) ? reconnect : ex;
                    String evidence = outageEvidence(why);
                    reason = ((evidence != null) ? evidence : "probe failed") + ": " + describe(why);
                    recover();
                    return true;
                }
                // Charged first where it can be, so that a key's next caller finds it charged. A charge cut
                // short by a dropped connection or a slow call does not keep every key off Redis (under
                // load, that was for good): a key that still owes is decided by the failure policy until
                // its charge lands, made by its next caller or below, so no decision reads state that lacks it.
                RuntimeException failure = chargePasses();
                if (failure != null && outageEvidence(failure) != null) {
                    reason = "charging what was admitted without Redis failed: " + describe(failure);
                    return true;
                }
                // Settled already when no other instance alive owes (one instance alone, or all back before it).
                boolean settled = settlement.settled();
                returnToRedis(settled);
                if (settled) {
                    // Keys that still owe are decided without Redis until the charge, scheduled now, is made.
                    owed();
                    return false;
                }
            }
            RuntimeException failure = chargePasses();
            if (failure != null) {
                return !failed(null, failure);
            }
            if (settlement.owes() || !settlement.settled()) {
                return true;
            }
            settling = false;
            logger.debug("Every rate limiter instance charged what it admitted without Redis; limits are Redis' alone again");
            return false;
        }
        catch (RuntimeException ex) {
            logger.debug("Settling after a Redis outage failed; trying again", ex);
            return !available.get() || !failed(null, ex);
        }
    }

    /**
     * Makes limiters decide on Redis again: at once, so that no call waits for the settlement, and
     * under the lock that calls deciding without Redis hold, so that none of them owes after it.
     *
     * @param settled whether no other instance owes: else limiters stay within their shares until none does
     */
    private void returnToRedis(boolean settled) {
        outageLock.writeLock().lock();
        try {
            failingSince.set(NOT_FAILING);
            reason = null;
            settling = !settled;
            available.set(true);
        }
        finally {
            outageLock.writeLock().unlock();
        }
        logger.info("Redis at " + address + " answers again; rate limiters use it again"
                + (settled ? "" : ", within their share of each limit until every instance has charged what it admitted without Redis"));
    }

    /**
     * Charges what is owed, in a few passes: keys that came to owe while being charged are charged by
     * the next. Null once done or when passes are up; else the failure that stopped it.
     */
    private @Nullable RuntimeException chargePasses() {
        for (int pass = 0; pass < CHARGE_PASSES && settlement.owes(); pass++) {
            RuntimeException failure = settlement.charge();
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }

    /** Passes over the keys that owe, in one probe interval, before the settlement waits for the next. */
    private static final int CHARGE_PASSES = 3;

    /**
     * Decides a call without Redis while it is out, unless limiters returned to it meanwhile: so that
     * nothing this instance admits without Redis is owed after the settlement began to charge it.
     *
     * @return the decision, or null when Redis is in use again and must decide
     */
    <T> @Nullable T whileOut(Supplier<T> decision) {
        outageLock.readLock().lock();
        try {
            return available.get() ? null : decision.get();
        }
        finally {
            outageLock.readLock().unlock();
        }
    }

    /**
     * Whether an outage is not settled yet: limiters decide on Redis, but admit no more than their
     * share of each limit, since other instances may still owe Redis permits they admitted.
     */
    boolean settling() {
        return settling;
    }

    /**
     * Whether limiters deciding on Redis keep within their shares now: while an outage settles, and while
     * this instance's heartbeats fail for so long that another instance may be silent without its knowing.
     */
    boolean keepsToShares() {
        return settling || settlement.uninformed();
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
