package dev.limiter.memory;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.LimiterClock;
import dev.limiter.Outcome;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.Retuning;
import dev.limiter.algorithm.LocalAlgorithm;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import org.jspecify.annotations.Nullable;

/**
 * A limiter whose state lives in this process: the algorithm's in-memory twin over a bounded
 * Caffeine cache whose entries expire when their state returns to idle, like the Redis keys.
 */
public final class InMemoryRateLimiter implements RateLimiter {

    private final String name;

    /** What it decides by now; replaced whole by a retune, and shared with its views. */
    private final AtomicReference<Tuning> tuning;

    /** The tuning in force: never null, set at construction and replaced whole. */
    private Tuning tuned() {
        return Objects.requireNonNull(tuning.get());
    }

    private final LimiterClock clock;

    private final Cache<String, Entry> states;

    private final DecisionListener listener;

    /** The outcome its listener hears for a rejection. */
    private final Outcome rejectedAs;

    InMemoryRateLimiter(String name, RateLimiterConfig config, LimiterClock clock, long maxKeys, DecisionListener listener) {
        this.name = RateLimiterFactory.checkName(name);
        this.tuning = new AtomicReference<>(Tuning.of(config, new Object()));
        this.clock = clock;
        this.listener = listener;
        this.rejectedAs = Outcome.REJECTED;
        this.states = Caffeine.newBuilder()
            .maximumSize(maxKeys)
            .ticker(() -> clock.nowMicros() * 1_000L)
            .expireAfter(new EntryExpiry())
            .build();
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

    /** State of one key, the era it belongs to, and the time (us) at which it is idle again. */
    record Entry(Object state, Object era, long idleAtMicros) {
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RateLimiterConfig config() {
        return tuned().config();
    }

    /**
     * Decides by {@code config} from now on, on the same states when it {@link RateLimiterConfig#keepsStateOf
     * keeps them}; otherwise every key starts fresh.
     */
    @Override
    public Retuning retune(RateLimiterConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        synchronized (tuning) {
            Tuning previous = tuned();
            Retuning retuning = new Retuning(name, previous.config(), config);
            if (!retuning.changed()) {
                return retuning;
            }
            boolean keep = retuning.stateKept();
            tuning.set(Tuning.of(config, keep ? previous.era() : new Object()));
            if (!keep) {
                // The states of the old era are never read again: free their memory now.
                states.invalidateAll();
            }
            return retuning;
        }
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
        checkPermits(permits);
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        DecisionListener heard = listener.onStart(this);
        Decision[] decision = new Decision[1];
        try {
            decide(key, permits, decision);
        }
        catch (RuntimeException ex) {
            heard.onDecision(DecisionEvent.failed(this, ex));
            throw ex;
        }
        if (heard != DecisionListener.NONE) {
            heard.onDecision(DecisionEvent.of(this, decision[0], rejectedAs, -1));
        }
        return decision[0];
    }

    private void decide(String key, long permits, Decision[] decision) {
        Tuning current = tuned();
        states.asMap().compute(key, (k, entry) -> {
            // Time is read while the key is locked, as a script reads TIME: read before, a thread preempted
            // on its way in would decide at a stale time and set an expiry already past, so the next call
            // found the key expired and a full bucket.
            long now = clock.nowMicros();
            LocalAlgorithm.Step<Object> step = current.twin().apply(state(entry, current), current.config(), now, permits);
            decision[0] = step.decision();
            if (!step.changed()) {
                return entry;
            }
            return (step.state() != null) ? new Entry(step.state(), current.era(), now + step.ttlMicros()) : null;
        });
    }

    /** The state of {@code entry} as {@code tuning} reads it: none when absent or of another era. */
    private static @Nullable Object state(@Nullable Entry entry, Tuning tuning) {
        return (entry != null && entry.era() == tuning.era()) ? entry.state() : null;
    }

    @Override
    public Quota quota(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        Tuning current = tuned();
        // No permits: the twin decides nothing and changes nothing; its reply is the quota.
        return Quota.of(current.twin().apply(state(states.getIfPresent(key), current), current.config(), clock.nowMicros(), 0).decision());
    }

    /** Forgets the state of {@code key}: it starts idle again. */
    public void forget(String key) {
        states.invalidate(key);
    }

    /** Forgets the state of {@code key}; an entry past its idle time counts as none. */
    @Override
    public boolean reset(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        Entry removed = states.asMap().remove(key);
        return removed != null && removed.idleAtMicros() > clock.nowMicros();
    }

    /**
     * Gives {@code permits} back to {@code key} through the twin's refund, applied to the key's state as
     * a decision is: under the key's lock, at the time read there.
     */
    @Override
    public Quota refund(String key, long permits) {
        checkPermits(permits);
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        Tuning current = tuned();
        Decision[] quota = new Decision[1];
        states.asMap().compute(key, (k, entry) -> {
            long now = clock.nowMicros();
            LocalAlgorithm.Step<Object> step = current.twin().refund(state(entry, current), current.config(), now, permits);
            quota[0] = step.decision();
            if (!step.changed()) {
                return entry;
            }
            return (step.state() != null) ? new Entry(step.state(), current.era(), now + step.ttlMicros()) : null;
        });
        return Quota.of(quota[0]);
    }

    /** Number of keys held, after expired ones are dropped. For tests and metrics. */
    public long keyCount() {
        states.cleanUp();
        return states.estimatedSize();
    }

    /** Checks the permits asked of any limiter: at least 1. Every backend checks them alike. */
    public static void checkPermits(long permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1 but was " + permits);
        }
    }

    @Override
    public String toString() {
        return "InMemoryRateLimiter[" + name + ", " + config() + "]";
    }

    private static final class EntryExpiry implements Expiry<String, Entry> {

        @Override
        public long expireAfterCreate(String key, Entry entry, long currentTime) {
            return TimeUnit.MICROSECONDS.toNanos(entry.idleAtMicros()) - currentTime;
        }

        @Override
        public long expireAfterUpdate(String key, Entry entry, long currentTime, long currentDuration) {
            return TimeUnit.MICROSECONDS.toNanos(entry.idleAtMicros()) - currentTime;
        }

        @Override
        public long expireAfterRead(String key, Entry entry, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
