package dev.limiter.memory;

import java.util.HashMap;
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
 * The in-memory twin of concurrency.lua (limiter-redis): per key, the slots taken and when each one's lease
 * runs out; a take drops the slots whose lease ran out, then takes one if fewer than the limit are left.
 */
final class InMemoryConcurrencyLimiter extends ConcurrencySlots {

    private final LimiterClock clock;

    /** Slot id to lease expiry in microseconds, per key; a key without slots has no entry. */
    private final Map<String, Map<String, Long>> keys = new ConcurrentHashMap<>();

    private final long leaseMicros;

    InMemoryConcurrencyLimiter(String name, ConcurrencyLimiterConfig config, LimiterClock clock, DecisionListener listener) {
        super(name, config, listener);
        this.clock = clock;
        this.leaseMicros = config.leaseMillis() * 1_000L;
    }

    @Override
    protected @Nullable Permit take(String key) {
        String slot = newSlot();
        boolean[] taken = new boolean[1];
        keys.compute(key, (k, slots) -> {
            long now = clock.nowMicros();
            Map<String, Long> live = (slots != null) ? slots : new HashMap<>();
            live.values().removeIf((expiry) -> expiry <= now);
            if (live.size() < config().limit()) {
                live.put(slot, now + leaseMicros);
                taken[0] = true;
            }
            return live.isEmpty() ? null : live;
        });
        return taken[0] ? hold(key, slot) : null;
    }

    @Override
    protected void release(String key, String slot) {
        keys.computeIfPresent(key, (k, slots) -> {
            slots.remove(slot);
            return slots.isEmpty() ? null : slots;
        });
    }

    @Override
    protected void renew(String key, List<String> slots) {
        keys.computeIfPresent(key, (k, live) -> {
            long now = clock.nowMicros();
            for (String slot : slots) {
                // Only a slot still taken: one whose lease ran out may have been given to another call.
                live.computeIfPresent(slot, (s, expiry) -> now + leaseMicros);
            }
            return live;
        });
    }

    /** Renews every slot this instance holds now, as its renewer does every third of the lease: for tests. */
    void renewNow() {
        renewAll();
    }

    @Override
    public int inFlight(String key) {
        LimiterArguments.checkKey(key);
        long now = clock.nowMicros();
        int[] count = new int[1];
        keys.computeIfPresent(key, (k, slots) -> {
            count[0] = (int) slots.values().stream().filter((expiry) -> expiry > now).count();
            return slots;
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
