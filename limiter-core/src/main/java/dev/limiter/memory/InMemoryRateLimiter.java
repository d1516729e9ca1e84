package dev.limiter.memory;

import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.LimiterClock;
import dev.limiter.Outcome;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.Retuning;
import dev.limiter.internal.CurrentTuning;
import dev.limiter.internal.LimiterArguments;
import dev.limiter.internal.algorithm.LocalAlgorithm;
import dev.limiter.memory.KeyStates.Entry;
import dev.limiter.memory.KeyStates.Holder;

import org.jspecify.annotations.Nullable;

/**
 * A limiter whose state lives in this process: the algorithm's in-memory twin over the states of a
 * bounded number of keys, each swapped whole by compare-and-set, which count as none once idle, like
 * the Redis keys that expire.
 */
final class InMemoryRateLimiter implements RateLimiter {

    private final String name;

    /** What it decides by now; replaced whole by a retune, and shared with its views. */
    private final CurrentTuning<Tuning> tuning;

    private final LimiterClock clock;

    private final KeyStates states;

    private final DecisionListener listener;

    /** The outcome its listener hears for a rejection. */
    private final Outcome rejectedAs;

    InMemoryRateLimiter(String name, RateLimiterConfig config, LimiterClock clock, long maxKeys, DecisionListener listener) {
        this.name = LimiterArguments.checkName(name);
        this.tuning = new CurrentTuning<>(name, Tuning.of(config, new Object()), Tuning::config);
        this.clock = clock;
        this.listener = listener;
        this.rejectedAs = Outcome.REJECTED;
        this.states = new KeyStates(maxKeys);
    }

    /** {@code limiter}, on the same states and tuning, with its rejections heard as {@code rejectedAs}. */
    private InMemoryRateLimiter(InMemoryRateLimiter limiter, Outcome rejectedAs) {
        this.name = limiter.name;
        this.tuning = limiter.tuning;
        this.clock = limiter.clock;
        this.listener = limiter.listener;
        this.rejectedAs = rejectedAs;
        this.states = limiter.states;
    }

    @Override
    public RateLimiter reportingRejectionsAs(Outcome outcome) {
        return (outcome == rejectedAs) ? this : new InMemoryRateLimiter(this, outcome);
    }

    /**
     * A configuration and its twin, with the era of the states it reads: a retune that keeps the keys'
     * state keeps the era, one that does not begins another, and a state of another era counts as none.
     * So a call decided by the old twin while the limiter is retuned can never leave a state the new
     * one misreads.
     */
    private record Tuning(RateLimiterConfig config, LocalAlgorithm<Object> twin, Object era) {

        @SuppressWarnings("unchecked")
        static Tuning of(RateLimiterConfig config, Object era) {
            return new Tuning(config, (LocalAlgorithm<Object>) LocalAlgorithm.of(config.algorithm()), era);
        }
    }

    /**
     * What a call does to one key's state, as a function of the twin: {@link #update} applies it
     * atomically. {@code permits} is the call's argument, passed through so the operation captures nothing.
     */
    @FunctionalInterface
    private interface Operation {

        LocalAlgorithm.Step<Object> apply(LocalAlgorithm<Object> twin, @Nullable Object state, RateLimiterConfig config, long now,
                long permits);
    }

    /** Takes permits; with none, reads the quota (the twin then decides nothing and changes nothing). */
    private static final Operation ACQUIRE = LocalAlgorithm::apply;

    private static final Operation REFUND = LocalAlgorithm::refund;

    private static final Operation CHARGE = LocalAlgorithm::charge;

    @Override
    public String name() {
        return name;
    }

    @Override
    public RateLimiterConfig config() {
        return tuning.config();
    }

    /**
     * Decides by {@code config} from now on, on the same states when it {@link RateLimiterConfig#keepsStateOf
     * keeps them}; otherwise every key starts fresh.
     */
    @Override
    public Retuning retune(RateLimiterConfig config) {
        return tuning.retune(config, (previous, retuning) -> Tuning.of(retuning.current(), retuning.stateKept() ? previous.era() : new Object()),
                (retuning) -> {
                    if (!retuning.stateKept()) {
                        // The states of the old era are never read again: free their memory now.
                        states.clear();
                    }
                });
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
        LimiterArguments.checkPermits(permits);
        LimiterArguments.checkKey(key);
        // Decided in this process in well under a microsecond: heard, not started (no observation of its own).
        Decision decision;
        try {
            decision = update(key, ACQUIRE, permits);
        }
        catch (RuntimeException ex) {
            listener.onDecision(DecisionEvent.failed(this, ex));
            throw ex;
        }
        if (listener != DecisionListener.NONE) {
            listener.onDecision(DecisionEvent.of(this, decision, rejectedAs, -1));
        }
        return decision;
    }

    /**
     * Applies {@code operation} to the state of {@code key} atomically: the one place where a key's state
     * is read and changed. Reads the state, then the time, as a script reads TIME after Redis has locked
     * it out for others, applies the twin, and publishes the new state only if the key still holds the
     * state read; otherwise starts over, time included. A decision that changes nothing is returned only
     * if the state it read was still the key's after the time was read. So every decision is one a script
     * could have made at its time, and one that is published is based on the state it replaces. Lock-free:
     * a call starts over only because another one changed the key.
     */
    private Decision update(String key, Operation operation, long permits) {
        Tuning current = tuning.get();
        @Nullable Holder holder = states.get(key);
        while (true) {
            if (holder == null) {
                long now = clock.nowMicros();
                LocalAlgorithm.Step<Object> step = operation.apply(current.twin(), null, current.config(), now, permits);
                if (!step.changed() || step.state() == null) {
                    // Nothing to keep for a key that holds nothing, if it still holds nothing.
                    holder = states.get(key);
                }
                else {
                    holder = states.add(key, entry(step, current, now), now);
                }
                if (holder == null) {
                    return step.decision();
                }
                continue;
            }
            Entry entry = holder.get();
            if (entry == KeyStates.REMOVED) {
                // Forgotten, swept or evicted meanwhile: the key now holds nothing, or another holder.
                states.discard(key, holder);
                holder = states.get(key);
                continue;
            }
            long now = clock.nowMicros();
            LocalAlgorithm.Step<Object> step = operation.apply(current.twin(), state(entry, current, now), current.config(), now, permits);
            if (step.changed() ? holder.compareAndSet(entry, entry(step, current, now)) : holder.get() == entry) {
                return step.decision();
            }
        }
    }

    /** The entry that keeps what {@code step} leaves, from {@code now}. */
    private static Entry entry(LocalAlgorithm.Step<Object> step, Tuning tuning, long now) {
        return new Entry(step.state(), tuning.era(), (step.state() != null) ? now + step.ttlMicros() : now);
    }

    /** The state of {@code entry} as {@code tuning} reads it at {@code now}: none when absent, idle or of another era. */
    private static @Nullable Object state(@Nullable Entry entry, Tuning tuning, long now) {
        return (entry != null && entry.era() == tuning.era() && entry.liveAt(now)) ? entry.state() : null;
    }

    @Override
    public Quota quota(String key) {
        LimiterArguments.checkKey(key);
        // No permits: the twin decides nothing and changes nothing; its reply is the quota.
        return Quota.of(update(key, ACQUIRE, 0));
    }

    /** Forgets the state of {@code key}: it starts idle again. */
    void forget(String key) {
        states.remove(key);
    }

    /** Forgets the state of {@code key}; a state past its idle time, or of before a retune that reset the keys, counts as none. */
    @Override
    public boolean reset(String key) {
        LimiterArguments.checkKey(key);
        Entry removed = states.remove(key);
        return state(removed, tuning.get(), clock.nowMicros()) != null;
    }

    /** Gives {@code permits} back to {@code key} through the twin's refund, applied to the key's state as a decision is. */
    @Override
    public Quota refund(String key, long permits) {
        LimiterArguments.checkPermits(permits);
        LimiterArguments.checkKey(key);
        return Quota.of(update(key, REFUND, permits));
    }

    /**
     * Settles through the twin's refund (actual below reserved) or charge (above), applied to the key's
     * state as a decision is.
     */
    @Override
    public @Nullable Quota settle(String key, long reserved, long actual) {
        LimiterArguments.checkSettlement(reserved, actual);
        LimiterArguments.checkKey(key);
        if (actual == reserved) {
            return null;
        }
        if (actual < reserved) {
            return Quota.of(update(key, REFUND, reserved - actual));
        }
        Tuning current = tuning.get();
        LocalAlgorithm.chargeChunk(current.config(), actual - reserved);
        return Quota.of(update(key, CHARGE, actual - reserved));
    }

    /** Number of keys held, after expired ones are dropped. For tests. */
    long keyCount() {
        return states.count(clock.nowMicros());
    }

    @Override
    public String toString() {
        return "InMemoryRateLimiter[" + name + ", " + config() + "]";
    }
}
