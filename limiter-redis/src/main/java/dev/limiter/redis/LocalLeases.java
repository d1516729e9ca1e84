package dev.limiter.redis;

import java.util.List;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterConfig;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import org.jspecify.annotations.Nullable;

/**
 * Permits of hot keys that this instance leased from Redis ({@link RateLimiterConfig.Lease}), handed
 * out here without asking Redis. A key is hot when this instance decided it less than the lease's
 * ttl before; a call on a hot key that goes to Redis sends the lease script, which takes the
 * caller's permits and then up to {@code lease.permits} more that are left, in one round trip. Those
 * are handed out to the next calls until they run out or ttl has passed since the call was sent;
 * then Redis decides again. Leased permits were counted in Redis when taken, so the instances
 * together never admit more than the limit; unused ones simply expire, and the key gets that many
 * fewer. Only allows: a call the lease cannot cover goes to Redis, which alone rejects.
 *
 * <p>One lease call per key at a time: while one is under way, the other calls on that key go to
 * Redis as plain decisions, so a flood of threads leases once, not once per thread, and at most
 * {@code lease.permits} of a key are reserved here at any time. Bounded like the other local caches;
 * a key forgotten loses its lease, which is never more than permits unused.
 */
final class LocalLeases {

    private final RateLimiterConfig config;

    private final long permits;

    private final long ttlMicros;

    private final LimiterClock clock;

    private final Cache<String, Holder> keys;

    /**
     * @param config a configuration with a lease
     * @param clock the time source of the leases' expiry, in microseconds
     * @param maxKeys most keys tracked at once; the least recently used are forgotten first
     */
    LocalLeases(RateLimiterConfig config, LimiterClock clock, long maxKeys) {
        RateLimiterConfig.Lease lease = config.lease();
        if (lease == null) {
            throw new IllegalArgumentException("No lease in " + config);
        }
        this.config = config;
        this.permits = lease.permits();
        this.ttlMicros = lease.ttlMicros();
        this.clock = clock;
        this.keys = Caffeine.newBuilder().maximumSize(maxKeys).build();
    }

    /**
     * Permits leased by one reply: the caller's remaining (including the lease) and reset-after as
     * Redis told them, when the call was sent (clock micros), how many were leased and how many of
     * them are handed out.
     */
    private static final class Lease {

        private final long reported;

        private final long remaining;

        private final long resetAfterMicros;

        private final long limitResetAfterMicros;

        private final long sentAt;

        private final long leased;

        private long handedOut;

        Lease(long reported, long remaining, long resetAfterMicros, long limitResetAfterMicros, long sentAt, long leased) {
            this.reported = reported;
            this.remaining = remaining;
            this.resetAfterMicros = resetAfterMicros;
            this.limitResetAfterMicros = limitResetAfterMicros;
            this.sentAt = sentAt;
            this.leased = leased;
        }
    }

    /** What this instance knows of one key; guarded by itself. */
    private static final class Holder {

        /** When this instance last decided the key, or Long.MIN_VALUE for never. */
        private long lastSeen = Long.MIN_VALUE;

        private @Nullable Lease lease;

        /** The lease call under way; null when none is. */
        private @Nullable Call pending;
    }

    /**
     * How a call goes: handed out here ({@code decision} not null), or sent to Redis, as the lease
     * script ({@code lease}) or the plain one.
     */
    record Call(@Nullable Decision decision, boolean lease, long atMicros, @Nullable Holder holder) {
    }

    private static final Call PLAIN = new Call(null, false, 0, null);

    /** Whether {@code permits} on {@code redisKey} are handed out here, or else how Redis should be asked. */
    Call call(String redisKey, long permits) {
        long now = clock.nowMicros();
        Holder holder = keys.get(redisKey, (key) -> new Holder());
        synchronized (holder) {
            long previous = holder.lastSeen;
            holder.lastSeen = now;
            Lease lease = holder.lease;
            if (lease != null) {
                long elapsed = now - lease.sentAt;
                if (elapsed >= ttlMicros || elapsed < 0) {
                    // Expired (or the clock went back): its unused permits stay taken in Redis, and are lost.
                    holder.lease = null;
                }
                else if (permits <= lease.leased - lease.handedOut) {
                    lease.handedOut += permits;
                    return new Call(handedOut(lease, elapsed), false, now, holder);
                }
            }
            boolean hot = previous != Long.MIN_VALUE && now - previous < ttlMicros && now >= previous;
            Call pending = holder.pending;
            // A lease call lost without an answer stops holding back others after ttl.
            boolean underWay = pending != null && now - pending.atMicros() < ttlMicros && now >= pending.atMicros();
            if (!hot || underWay || permits == 0) {
                return PLAIN;
            }
            Call call = new Call(null, true, now, holder);
            holder.pending = call;
            return call;
        }
    }

    /** The decision of permits handed out from {@code lease}, {@code elapsed} micros after it was sent. */
    private Decision handedOut(Lease lease, long elapsed) {
        long reset = Math.max(0, lease.resetAfterMicros - elapsed);
        long limitReset = Math.min(reset, Math.max(0, lease.limitResetAfterMicros - elapsed));
        return Decision.of(config, 1, lease.reported, lease.remaining - lease.handedOut, reset, 0, 0, 0, limitReset, DecisionSource.LEASE);
    }

    /** Takes the lease in the reply to {@code call}, a lease call: its permits are handed out from now on. */
    void leased(Call call, List<?> reply) {
        Holder holder = call.holder();
        if (holder == null) {
            return;
        }
        long leased = ScriptCodec.number(reply, 8);
        synchronized (holder) {
            if (holder.pending == call) {
                holder.pending = null;
            }
            if (leased > 0) {
                // Replaces what is left of an older lease: those permits were taken earlier, and must not outlive their ttl.
                holder.lease = new Lease(ScriptCodec.number(reply, 1), ScriptCodec.number(reply, 2), ScriptCodec.number(reply, 9),
                        ScriptCodec.number(reply, 10), call.atMicros(), leased);
            }
        }
    }

    /** Ends {@code call}, a lease call Redis did not answer: the next call on the key may lease. */
    void failed(Call call) {
        Holder holder = call.holder();
        if (holder == null) {
            return;
        }
        synchronized (holder) {
            if (holder.pending == call) {
                holder.pending = null;
            }
        }
    }

    /** Permits still leased for {@code redisKey} and usable now: for tests and quotas. */
    long left(String redisKey) {
        Holder holder = keys.getIfPresent(redisKey);
        if (holder == null) {
            return 0;
        }
        synchronized (holder) {
            Lease lease = holder.lease;
            long elapsed = clock.nowMicros() - ((lease != null) ? lease.sentAt : 0);
            return (lease != null && elapsed >= 0 && elapsed < ttlMicros) ? lease.leased - lease.handedOut : 0;
        }
    }

    /** Forgets {@code redisKey}, its lease included: after a reset, leased permits were never taken from the new state. */
    void forget(String redisKey) {
        keys.invalidate(redisKey);
    }

    /** Most permits a call leases beyond its own, as the lease script's first argument. */
    String permitsArgument() {
        return Long.toString(permits);
    }
}
