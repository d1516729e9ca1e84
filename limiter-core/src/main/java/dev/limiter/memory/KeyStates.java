package dev.limiter.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The keys of one in-memory limiter, each with a {@link Holder} of its state, bounded to a number of
 * keys. A decision only reads the map and swaps the state inside the holder, so a hot key costs no lock
 * and no write to a shared structure (Caffeine, which held the states before, recorded every call as an
 * access and woke a pool thread to drain those records). The map changes when a key is added, forgotten,
 * found idle by a sweep, or evicted beyond the bound; each of those first marks the holder
 * {@link #REMOVED}, so that a decision still holding it can never publish a state that is lost.
 */
final class KeyStates {

    /**
     * State of one key, the era it belongs to, and the time (us) at which it is idle again. Immutable,
     * and a new one for every change, so a holder never sees the same entry twice (no ABA).
     */
    record Entry(@Nullable Object state, Object era, long idleAtMicros) {

        /** Whether this holds a state that still matters at {@code now}. */
        boolean liveAt(long now) {
            return state != null && idleAtMicros > now;
        }
    }

    /** The state of one key, swapped whole by compare-and-set. */
    static final class Holder {

        private static final VarHandle ENTRY;

        static {
            try {
                ENTRY = MethodHandles.lookup().findVarHandle(Holder.class, "entry", Entry.class);
            }
            catch (ReflectiveOperationException ex) {
                throw new ExceptionInInitializerError(ex);
            }
        }

        private volatile Entry entry;

        Holder(Entry entry) {
            this.entry = entry;
        }

        Entry get() {
            return entry;
        }

        void set(Entry next) {
            entry = next;
        }

        boolean compareAndSet(Entry expected, Entry next) {
            return ENTRY.compareAndSet(this, expected, next);
        }

        Entry getAndSet(Entry next) {
            return (Entry) ENTRY.getAndSet(this, next);
        }
    }

    /** The entry of a holder taken out of the map: whoever reads it looks the key up again. */
    static final Entry REMOVED = new Entry(null, new Object(), Long.MIN_VALUE);

    /** How often, in the limiter's time, keys found idle are dropped while new keys arrive. */
    static final long SWEEP_INTERVAL_MICROS = 1_000_000;

    private final ConcurrentHashMap<String, Holder> holders = new ConcurrentHashMap<>();

    private final long maxKeys;

    /** Held while sweeping or evicting: one caller at a time does it, the others go on. */
    private final ReentrantLock maintenance = new ReentrantLock();

    /** Time from which the next key added sweeps the idle ones. */
    private volatile long nextSweepMicros = Long.MIN_VALUE;

    KeyStates(long maxKeys) {
        this.maxKeys = maxKeys;
    }

    /** The holder of {@code key}, or null when the key holds nothing. */
    @Nullable Holder get(String key) {
        return holders.get(key);
    }

    /**
     * Adds {@code key} with {@code entry} unless it is held already: null when added, else the holder
     * that is there. Adding a key is what drops idle keys from time to time and keeps the bound.
     */
    @Nullable Holder add(String key, Entry entry, long now) {
        Holder existing = holders.putIfAbsent(key, new Holder(entry));
        if (existing == null && (holders.size() > maxKeys || now >= nextSweepMicros) && maintenance.tryLock()) {
            try {
                sweep(now);
            }
            finally {
                maintenance.unlock();
            }
        }
        return existing;
    }

    /** Takes {@code holder}, which a caller found {@link #REMOVED}, out of the map, should its remover not have done so yet. */
    void discard(String key, Holder holder) {
        holders.remove(key, holder);
    }

    /** Forgets {@code key}: the entry it held, or null when it held none. */
    @Nullable Entry remove(String key) {
        Holder holder = holders.get(key);
        if (holder == null) {
            return null;
        }
        Entry removed = holder.getAndSet(REMOVED);
        holders.remove(key, holder);
        return (removed != REMOVED) ? removed : null;
    }

    /** Forgets every key. */
    void clear() {
        for (Map.Entry<String, Holder> held : holders.entrySet()) {
            held.getValue().set(REMOVED);
            holders.remove(held.getKey(), held.getValue());
        }
    }

    /** Number of keys held at {@code now}, after the idle ones are dropped. */
    long count(long now) {
        maintenance.lock();
        try {
            sweep(now);
            return holders.size();
        }
        finally {
            maintenance.unlock();
        }
    }

    /**
     * Drops the keys idle at {@code now}, then, while more than {@link #maxKeys} are held, those that
     * become idle soonest: forgetting them gives callers the fewest permits back, while a key at its
     * limit, which would be forgotten last, is the one a flood of new keys must not free. Under the
     * maintenance lock.
     */
    private void sweep(long now) {
        nextSweepMicros = now + SWEEP_INTERVAL_MICROS;
        for (Map.Entry<String, Holder> held : holders.entrySet()) {
            Holder holder = held.getValue();
            Entry entry = holder.get();
            if (entry != REMOVED && !entry.liveAt(now) && holder.compareAndSet(entry, REMOVED)) {
                holders.remove(held.getKey(), holder);
            }
        }
        // Bounded: keys added meanwhile by other callers wait for the next sweep.
        for (int pass = 0; pass < 4 && holders.size() > maxKeys; pass++) {
            evict();
        }
    }

    /**
     * Evicts the keys that become idle soonest: enough to bring the count a sixteenth of the bound below
     * it, so that a stream of new keys pays for a pass over the map once in so many keys, not on each.
     */
    private void evict() {
        long[] idleAt = new long[holders.size() + 16];
        int n = 0;
        for (Holder holder : holders.values()) {
            if (n == idleAt.length) {
                break;
            }
            idleAt[n++] = holder.get().idleAtMicros();
        }
        long excess = holders.size() - (maxKeys - maxKeys / 16);
        if (n == 0 || excess <= 0) {
            return;
        }
        Arrays.sort(idleAt, 0, n);
        long threshold = idleAt[(int) Math.min(excess, n) - 1];
        for (Map.Entry<String, Holder> held : holders.entrySet()) {
            if (excess <= 0) {
                break;
            }
            Holder holder = held.getValue();
            Entry entry = holder.get();
            if (entry.idleAtMicros() <= threshold && holder.compareAndSet(entry, REMOVED)) {
                holders.remove(held.getKey(), holder);
                excess--;
            }
        }
    }
}
