package dev.limiter.redis;

import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.LimitSpec;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/**
 * Permits the failure policy admitted while Redis did not answer, not yet counted in Redis, by Redis
 * key. Each key's permits are charged to its state as soon as Redis answers again (its algorithm's
 * script, taking them as a caller that waits as long as it takes does), and until then the key is
 * decided by the failure policy, not by Redis: so every permit admitted anywhere is counted in Redis
 * before this instance decides on that key's Redis state again.
 *
 * <p>Charged later than admitted, a permit may weigh a little longer than it would have: a permit too
 * few, never one too many. Permits that weigh no more by now (admitted longer ago than the key's
 * longest window, or than a bucket takes to refill from empty) are not charged at all, and a key is
 * charged at most its capacity at once, all a decision can take: more would change nothing a window
 * counts, only a bucket's debt. At most {@code maxKeys} keys owe at once: past them, {@link #owe}
 * refuses, and the failure policy admits nothing for further keys until charges make room.
 */
final class UnchargedPermits {

    private final ConcurrentHashMap<String, Owed> owed = new ConcurrentHashMap<>();

    private final long maxKeys;

    private final LimiterClock clock;

    /** Whether any key may owe: read on every decision, so that the usual case costs one volatile read. */
    private volatile boolean any;

    /**
     * @param clock when permits were admitted and charged, to know which still weigh; in microseconds
     */
    UnchargedPermits(long maxKeys, LimiterClock clock) {
        this.maxKeys = maxKeys;
        this.clock = clock;
    }

    /** Whether {@code redisKey} holds permits not yet charged: then it is decided without Redis. */
    boolean owes(String redisKey) {
        return any && owed.containsKey(redisKey);
    }

    /** Whether no key owes anything. */
    boolean isEmpty() {
        return owed.isEmpty();
    }

    /** Number of keys owing, for tests and health. */
    int keys() {
        return owed.size();
    }

    /**
     * Remembers {@code permits} admitted for {@code redisKey} without Redis.
     *
     * @return false when {@code maxKeys} other keys owe already: nothing is remembered, and the caller
     *     must not admit the permits
     */
    boolean owe(String redisKey, RedisRateLimiter.Tuning tuning, long permits) {
        long now = clock.nowMicros();
        boolean[] full = {false};
        owed.compute(redisKey, (key, entry) -> {
            Owed owing = entry;
            if (owing == null || owing.tuning != tuning) {
                if (owing == null && owed.size() >= maxKeys) {
                    full[0] = true;
                    return null;
                }
                // A retune changed the key's script or limits: what it owed before weighs on state no longer read.
                owing = new Owed(tuning);
            }
            owing.add(now, permits);
            return owing;
        });
        if (!full[0]) {
            any = true;
        }
        return !full[0];
    }

    /** Forgets what {@code redisKey} owes: its state in Redis was reset. */
    void forget(String redisKey) {
        owed.remove(redisKey);
    }

    /**
     * Charges every key that owes, one script call each, until one fails.
     *
     * @param redis where the keys' states live
     * @param scriptNow the time the scripts decide at, null for Redis TIME
     * @return null when every key that owed when it began is charged or being charged (keys that came
     *     to owe since are charged by the next call); else the failure that stopped the charging (the
     *     key whose call failed still owes, so a call that timed out is sent again later: a permit
     *     charged twice is a permit too few, never one too many)
     */
    @Nullable RuntimeException chargeAll(BlockingScripts redis, @Nullable LimiterClock scriptNow) {
        for (String redisKey : owed.keySet()) {
            RuntimeException failure = charge(redisKey, redis, scriptNow);
            if (failure != null) {
                return failure;
            }
        }
        if (owed.isEmpty()) {
            any = false;
            // A key owed between the test and the write above still holds any up.
            if (!owed.isEmpty()) {
                any = true;
            }
        }
        return null;
    }

    /**
     * Charges what {@code redisKey} owes now, with one script call, unless a charge of it is on its
     * way already. The key owes until the charge is made, so that no decision reads its Redis state
     * before then; permits admitted meanwhile owe after it.
     *
     * @return null when charged, or nothing was to charge; else the failure, and the key still owes
     */
    @Nullable RuntimeException charge(String redisKey, BlockingScripts redis, @Nullable LimiterClock scriptNow) {
        long[] due = {0};
        RedisRateLimiter.Tuning[] tuning = {null};
        long now = clock.nowMicros();
        owed.computeIfPresent(redisKey, (key, entry) -> {
            if (!entry.charging) {
                due[0] = entry.take(now);
                tuning[0] = entry.tuning;
                entry.charging = due[0] > 0;
            }
            // Nothing that weighs any more: the key owes nothing.
            return (entry.isEmpty() && !entry.charging) ? null : entry;
        });
        RedisRateLimiter.Tuning charged = tuning[0];
        if (charged == null || due[0] == 0) {
            return null;
        }
        try {
            redis.execute(charged.script(), redisKey, charged.codec().chargeArguments((scriptNow != null) ? scriptNow.nowMicros() : null, due[0]));
        }
        catch (RuntimeException ex) {
            owed.compute(redisKey, (key, entry) -> {
                Owed owing = (entry != null) ? entry : new Owed(charged);
                owing.charging = false;
                owing.add(now, due[0]);
                return owing;
            });
            return ex;
        }
        // Permits admitted while the charge was on its way still owe: the key stays until they are charged too.
        owed.computeIfPresent(redisKey, (key, entry) -> {
            entry.charging = false;
            return entry.isEmpty() ? null : entry;
        });
        return null;
    }

    /**
     * What one key owes: the permits admitted in the current period of {@code horizon} and in the one
     * before, which may still weigh on its state. Guarded by the map's lock on the key.
     */
    private static final class Owed {

        final RedisRateLimiter.Tuning tuning;

        /** How long after its admission a permit weighs on the key's state, in microseconds. */
        final long horizon;

        /** The capacity of the key's smallest limit: the most one charge can take. */
        final long capacity;

        private long since = Long.MIN_VALUE;

        private long current;

        private long previous;

        /** Whether a charge of this key is on its way: no other is sent meanwhile, and the key owes until it is made. */
        boolean charging;

        Owed(RedisRateLimiter.Tuning tuning) {
            this.tuning = tuning;
            RateLimiterConfig config = tuning.config();
            long longest = 0;
            long smallest = Long.MAX_VALUE;
            for (int i = 0; i < config.limits().size(); i++) {
                LimitSpec spec = config.limits().get(i);
                long weighs = config.algorithm().isBucket()
                        ? (long) Math.ceil((double) spec.burst() * spec.windowMicros() / spec.limit()) : spec.windowMicros();
                longest = Math.max(longest, weighs);
                smallest = Math.min(smallest, config.capacity(i));
            }
            this.horizon = Math.max(1, longest);
            this.capacity = smallest;
        }

        void add(long now, long permits) {
            roll(now);
            current = saturatedAdd(current, permits);
        }

        /** Takes what still weighs now, at most the capacity; the rest is dropped. */
        long take(long now) {
            roll(now);
            long due = Math.min(capacity, saturatedAdd(current, previous));
            current = 0;
            previous = 0;
            return due;
        }

        boolean isEmpty() {
            return current == 0 && previous == 0;
        }

        /** Moves to the period of {@code now}: permits of a period two or more before weigh no more. */
        private void roll(long now) {
            if (since == Long.MIN_VALUE) {
                since = now;
                return;
            }
            long periods = (now - since) / horizon;
            if (periods >= 2) {
                previous = 0;
                current = 0;
                since = now;
            }
            else if (periods == 1) {
                previous = current;
                current = 0;
                since += horizon;
            }
        }

        private static long saturatedAdd(long a, long b) {
            long sum = a + b;
            return (sum < 0) ? Long.MAX_VALUE : sum;
        }
    }
}
