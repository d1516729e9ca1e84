package dev.limiter.memory;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.LimiterClock;
import dev.limiter.Permit;
import dev.limiter.internal.ConcurrencySlots;
import dev.limiter.internal.LimiterArguments;

import org.jspecify.annotations.Nullable;

/**
 * The in-memory twin of concurrency-take.lua (limiter-redis): per key, the slots taken and when each one's
 * lease runs out, and the waiters' tickets in arrival order with when each one's lease runs out; a take drops
 * the slots and tickets whose lease ran out, then takes a slot if the caller's rank in the queue (after every
 * ticket when it has none queued) is below the slots free, else queues its ticket or renews its lease.
 */
final class InMemoryConcurrencyLimiter extends ConcurrencySlots {

    private final LimiterClock clock;

    /** Per key, its slots and its queue; a key without either has no entry. */
    private final Map<String, Slots> keys = new ConcurrentHashMap<>();

    private final long leaseMicros;

    private final long ticketLeaseMicros = TICKET_LEASE.toNanos() / 1_000L;

    /** A key's state, changed only inside {@code keys.compute}. */
    private static final class Slots {

        /** Slot id to lease expiry in microseconds. */
        final Map<String, Long> taken = new HashMap<>();

        /** Ticket to lease expiry in microseconds, in arrival order. */
        final LinkedHashMap<String, Long> queue = new LinkedHashMap<>();

        boolean isEmpty() {
            return taken.isEmpty() && queue.isEmpty();
        }
    }

    InMemoryConcurrencyLimiter(String name, ConcurrencyLimiterConfig config, LimiterClock clock, DecisionListener listener) {
        super(name, config, listener);
        this.clock = clock;
        this.leaseMicros = config.leaseMillis() * 1_000L;
    }

    @Override
    protected @Nullable Permit take(String key, @Nullable String ticket) {
        String slot = newSlot();
        boolean[] took = new boolean[1];
        keys.compute(key, (k, state) -> {
            long now = clock.nowMicros();
            Slots live = (state != null) ? state : new Slots();
            live.taken.values().removeIf((expiry) -> expiry <= now);
            live.queue.values().removeIf((expiry) -> expiry <= now);
            int rank = rank(live.queue, ticket);
            if (rank < config().limit() - live.taken.size()) {
                live.taken.put(slot, now + leaseMicros);
                if (ticket != null) {
                    live.queue.remove(ticket);
                }
                took[0] = true;
            }
            else if (ticket != null) {
                // Queued at the end if new; a renewal keeps its place (LinkedHashMap keeps insertion order).
                live.queue.put(ticket, now + ticketLeaseMicros);
            }
            return live.isEmpty() ? null : live;
        });
        return took[0] ? hold(key, slot) : null;
    }

    /** Where {@code ticket} is in {@code queue}, or its size when it is not queued. */
    private static int rank(LinkedHashMap<String, Long> queue, @Nullable String ticket) {
        int rank = 0;
        if (ticket != null) {
            for (String queued : queue.keySet()) {
                if (queued.equals(ticket)) {
                    return rank;
                }
                rank++;
            }
        }
        return queue.size();
    }

    @Override
    protected void leave(String key, String ticket) {
        keys.computeIfPresent(key, (k, state) -> {
            state.queue.remove(ticket);
            return state.isEmpty() ? null : state;
        });
    }

    @Override
    protected void release(String key, String slot) {
        keys.computeIfPresent(key, (k, state) -> {
            state.taken.remove(slot);
            return state.isEmpty() ? null : state;
        });
    }

    @Override
    protected void renew(String key, List<String> slots) {
        keys.computeIfPresent(key, (k, state) -> {
            long now = clock.nowMicros();
            for (String slot : slots) {
                // Only a slot still taken: one whose lease ran out may have been given to another call.
                state.taken.computeIfPresent(slot, (s, expiry) -> now + leaseMicros);
            }
            return state;
        });
    }

    /** Renews every slot this instance holds now, as its renewer does every third of the lease: for tests. */
    void renewNow() {
        renewAll();
    }

    /** The tickets queued for {@code key} now, their leases not run out: for tests. */
    int queued(String key) {
        long now = clock.nowMicros();
        int[] count = new int[1];
        keys.computeIfPresent(key, (k, state) -> {
            count[0] = (int) state.queue.values().stream().filter((expiry) -> expiry > now).count();
            return state;
        });
        return count[0];
    }

    @Override
    public int inFlight(String key) {
        LimiterArguments.checkKey(key);
        long now = clock.nowMicros();
        int[] count = new int[1];
        keys.computeIfPresent(key, (k, state) -> {
            count[0] = (int) state.taken.values().stream().filter((expiry) -> expiry > now).count();
            return state;
        });
        return count[0];
    }

    @Override
    protected DecisionSource source() {
        return DecisionSource.MEMORY;
    }

    @Override
    public String toString() {
        return "InMemoryConcurrencyLimiter[" + name() + ", " + config() + "]";
    }
}
