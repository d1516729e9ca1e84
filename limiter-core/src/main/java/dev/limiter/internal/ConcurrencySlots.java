package dev.limiter.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.limiter.ConcurrencyEvent;
import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.Decision;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.Outcome;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;

import org.jspecify.annotations.Nullable;

/**
 * What every backend's {@link ConcurrencyLimiter} does alike: slot ids unique across instances, the
 * permits this instance holds, their renewal every third of the lease (one call per key, all of its
 * slots at once), and fair waiting: a waiter holds a ticket in the key's queue, renewed by each of its
 * attempts (retried with a randomized backoff), and only the waiters at the head of the queue can take the
 * slots that come free. A backend says how a slot is taken, released and renewed, and a ticket queued and
 * taken out, in its state.
 */
public abstract class ConcurrencySlots implements ConcurrencyLimiter {

    /** First pause of a waiting caller; each next one doubles, up to {@link #MAX_BACKOFF}. */
    static final Duration FIRST_BACKOFF = Duration.ofMillis(2);

    /** Longest pause of a waiting caller between two attempts. */
    static final Duration MAX_BACKOFF = Duration.ofMillis(100);

    /**
     * How long a waiter's ticket keeps its place in the queue without an attempt renewing it: ten of the
     * longest pauses between two attempts, so a live waiter keeps its place and a dead one blocks the
     * waiters behind it this long at most.
     */
    public static final Duration TICKET_LEASE = Duration.ofSeconds(1);

    private final String name;

    private final ConcurrencyLimiterConfig config;

    /** Unique to this limiter object: a slot id is it and a counter, so instances never take each other's slots. */
    private final String instanceId;

    private final AtomicLong slots = new AtomicLong();

    /** The permits whose slots this instance renews, until closed. */
    private final Set<Held> held = ConcurrentHashMap.newKeySet();

    private final AtomicInteger inUse = new AtomicInteger();

    private final AtomicBoolean renewing = new AtomicBoolean();

    private volatile boolean closed;

    private final ScheduledExecutorService renewer;

    private final DecisionListener listener;

    /**
     * @param name the limiter's name
     * @param config what it decides by
     * @param listener hears each take's {@link ConcurrencyEvent}; {@link DecisionListener#NONE} for no one
     */
    protected ConcurrencySlots(String name, ConcurrencyLimiterConfig config, DecisionListener listener) {
        this.name = LimiterArguments.checkName(name);
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        this.config = config;
        this.listener = (listener != null) ? listener : DecisionListener.NONE;
        this.instanceId = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        this.renewer = Executors.newSingleThreadScheduledExecutor((task) -> {
            Thread thread = new Thread(task, "limiter-concurrency-renewer-" + name);
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final ConcurrencyLimiterConfig config() {
        return config;
    }

    /**
     * Takes a slot of {@code key} in the backend's state, through {@link #hold} for a slot to renew or
     * {@link #unheld} for a permit the failure policy admits without one. First come, first served: a
     * caller at rank r of the key's queue of live tickets (a caller whose ticket is not queued ranks after
     * them all) takes a slot only when r is below the slots free. A caller with a ticket that gets no slot
     * queues it, or renews its lease ({@link #TICKET_LEASE}) if it is queued already; with a slot, its
     * ticket leaves the queue.
     *
     * @param ticket the waiter's ticket, unique across instances ({@link #newTicket}); null never to queue
     * @return the permit, null when no slot is free for this caller, or {@link #refused} when the failure
     *     policy rejects the call
     */
    protected abstract @Nullable Permit take(String key, @Nullable String ticket);

    /** Takes ticket {@code ticket} out of {@code key}'s queue; what it throws is ignored (its lease ends it later). */
    protected abstract void leave(String key, String ticket);

    /** Frees slot {@code slot} of {@code key}; what it throws is ignored (the lease frees it later). */
    protected abstract void release(String key, String slot);

    /** Extends the lease of the slots {@code slots} of {@code key} that are still taken; what it throws is ignored. */
    protected abstract void renew(String key, List<String> slots);

    /** A new slot id, unique across instances. */
    protected final String newSlot() {
        return instanceId + ":" + slots.incrementAndGet();
    }

    /** A new waiter's ticket, unique across instances. */
    protected final String newTicket() {
        return instanceId + ":w" + slots.incrementAndGet();
    }

    /** A permit of slot {@code slot} of {@code key}, now taken: renewed until closed, then released. */
    protected final Permit hold(String key, String slot) {
        Held permit = new Held(key, slot);
        held.add(permit);
        inUse.incrementAndGet();
        startRenewing();
        return permit;
    }

    /** A permit that holds no slot (admitted by a failure policy): counted in use until closed, nothing else. */
    protected final Permit unheld(String key) {
        inUse.incrementAndGet();
        return new Unheld(key);
    }

    /** A permit of another limiter (a failure policy's local one), counted in use by this one until closed. */
    protected final Permit counted(Permit permit) {
        inUse.incrementAndGet();
        return new Counted(permit);
    }

    /**
     * What {@link #take} answers when a failure policy, not the slots, rejects the call: {@code by} is
     * {@link DecisionSource#FAILURE_POLICY} for {@code deny}, {@link DecisionSource#LOCAL_FALLBACK} for a
     * local share with every slot taken. Never given to callers.
     */
    protected static Permit refused(DecisionSource by) {
        return (by == DecisionSource.LOCAL_FALLBACK) ? Refused.LOCAL : Refused.POLICY;
    }

    @Override
    public Optional<Permit> tryAcquire(String key) {
        LimiterArguments.checkKey(key);
        // No ticket: never queues, and takes a slot only beyond those the queued waiters are due.
        return Optional.ofNullable(decided(take(key, null), -1));
    }

    @Override
    public Permit acquire(String key) {
        LimiterArguments.checkKey(key);
        long started = System.nanoTime();
        // Without max-wait there is no waiting, and so no place in the queue to keep.
        String ticket = config.maxWait().isZero() ? null : newTicket();
        Permit last = take(key, ticket);
        if (taken(last) != null) {
            return decided(last, System.nanoTime() - started);
        }
        long deadline = started + config.maxWait().toNanos();
        long backoff = FIRST_BACKOFF.toNanos();
        while (ticket != null) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                break;
            }
            // Randomized, so waiters of many instances do not retry in step; bounded by what is left of max-wait.
            LockSupport.parkNanos(Math.min(left, ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1)));
            backoff = Math.min(backoff * 2, MAX_BACKOFF.toNanos());
            last = take(key, ticket);
            if (taken(last) != null) {
                return decided(last, System.nanoTime() - started);
            }
        }
        if (ticket != null && last == null) {
            // Given up (max-wait over, or interrupted): the waiters behind move up now. After a failure
            // policy's refusal the backend is not asked again; the ticket's lease ends it.
            // Asked even when interrupted (the flag is kept), since the ticket would block others a lease long.
            boolean interrupted = Thread.interrupted();
            try {
                leave(key, ticket);
            }
            catch (RuntimeException ex) {
                // Its lease ends it.
            }
            finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        // What refused the last attempt: the slots (null), or the failure policy.
        decided(last, System.nanoTime() - started);
        throw new RateLimitExceededException(name, rejection());
    }

    /** {@code taken}, unless it is a refusal: then null. */
    private static @Nullable Permit taken(@Nullable Permit taken) {
        return (taken instanceof Refused) ? null : taken;
    }

    /** Tells the listener what became of one take; returns the permit to give the caller, or null. */
    private @Nullable Permit decided(@Nullable Permit taken, long waitedNanos) {
        Outcome outcome = (taken == null || taken instanceof Refused) ? Outcome.REJECTED : Outcome.ALLOWED;
        DecisionSource by;
        if (taken instanceof Refused refused) {
            by = refused.by;
        }
        else if (taken instanceof Unheld) {
            by = DecisionSource.FAILURE_POLICY;
        }
        else if (taken instanceof Counted) {
            by = DecisionSource.LOCAL_FALLBACK;
        }
        else {
            by = source();
        }
        try {
            listener.onConcurrencyDecision(new ConcurrencyEvent(this, outcome, by, waitedNanos));
        }
        catch (RuntimeException ex) {
            // A listener must not throw; if one does, the call is not its victim.
        }
        return (outcome == Outcome.ALLOWED) ? taken : null;
    }

    /** The decision a caller that found no slot is rejected with. */
    protected Decision rejection() {
        // When a slot comes free no one can tell: a call ends when it ends. Retry-after is a hint, a second at most.
        Duration retry = (config.lease().compareTo(Duration.ofSeconds(1)) < 0) ? config.lease() : Duration.ofSeconds(1);
        return new Decision(false, config.limit(), 0, Duration.ZERO, Duration.ZERO, retry, Duration.ZERO,
                LimitSpec.of(config.limit(), config.lease()), source());
    }

    /** What decides: this backend. */
    protected abstract DecisionSource source();

    @Override
    public int inUse() {
        return inUse.get();
    }

    private void startRenewing() {
        if (!closed && renewing.compareAndSet(false, true)) {
            long every = Math.max(1, config.leaseMillis() / 3);
            try {
                renewer.scheduleWithFixedDelay(this::renewAll, every, every, TimeUnit.MILLISECONDS);
            }
            catch (RuntimeException ex) {
                // Closed meanwhile: nothing is renewed any more, as close() says.
            }
        }
    }

    /** Renews every slot this instance holds: one call per key. */
    protected final void renewAll() {
        Map<String, List<String>> byKey = new HashMap<>();
        for (Held permit : held) {
            byKey.computeIfAbsent(permit.key, (k) -> new ArrayList<>()).add(permit.slot);
        }
        byKey.forEach((key, slotsOfKey) -> {
            try {
                renew(key, slotsOfKey);
            }
            catch (RuntimeException ex) {
                // Renewed at the next round, if the lease has not run out by then.
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        renewer.shutdownNow();
    }

    private final class Held implements Permit {

        final String key;

        final String slot;

        private final AtomicBoolean open = new AtomicBoolean(true);

        Held(String key, String slot) {
            this.key = key;
            this.slot = slot;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                held.remove(this);
                inUse.decrementAndGet();
                try {
                    release(key, slot);
                }
                catch (RuntimeException ex) {
                    // Not renewed any more: the slot comes back when its lease runs out.
                }
            }
        }

        @Override
        public String toString() {
            return "Permit[" + name + ", " + key + ", " + slot + "]";
        }
    }

    private final class Unheld implements Permit {

        private final String key;

        private final AtomicBoolean open = new AtomicBoolean(true);

        Unheld(String key) {
            this.key = key;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                inUse.decrementAndGet();
            }
        }
    }

    /** A take the failure policy refused: never given to callers. */
    private enum Refused implements Permit {

        POLICY(DecisionSource.FAILURE_POLICY), LOCAL(DecisionSource.LOCAL_FALLBACK);

        final DecisionSource by;

        Refused(DecisionSource by) {
            this.by = by;
        }

        @Override
        public String key() {
            return "";
        }

        @Override
        public void close() {
        }
    }

    private final class Counted implements Permit {

        private final Permit permit;

        private final AtomicBoolean open = new AtomicBoolean(true);

        Counted(Permit permit) {
            this.permit = permit;
        }

        @Override
        public String key() {
            return permit.key();
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                inUse.decrementAndGet();
                permit.close();
            }
        }
    }
}
