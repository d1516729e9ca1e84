package dev.limiter.memory;

import java.util.concurrent.TimeUnit;

import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.LimiterClock;
import dev.limiter.Outcome;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.algorithm.LocalAlgorithm;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

/**
 * A limiter whose state lives in this process: the algorithm's in-memory twin over a bounded
 * Caffeine cache whose entries expire when their state returns to idle, like the Redis keys.
 *
 * @param <S> state of one key
 */
public final class InMemoryRateLimiter<S> implements RateLimiter {

    private final String name;

    private final RateLimiterConfig config;

    private final LocalAlgorithm<S> twin;

    private final LimiterClock clock;

    private final Cache<String, Entry<S>> states;

    private final DecisionListener listener;

    /** The outcome its listener hears for a rejection. */
    private final Outcome rejectedAs;

    @SuppressWarnings("unchecked")
    InMemoryRateLimiter(String name, RateLimiterConfig config, LimiterClock clock, long maxKeys, DecisionListener listener) {
        this.name = RateLimiterFactory.checkName(name);
        this.config = config;
        this.twin = (LocalAlgorithm<S>) LocalAlgorithm.of(config.algorithm());
        this.clock = clock;
        this.listener = listener;
        this.rejectedAs = Outcome.REJECTED;
        this.states = Caffeine.newBuilder()
            .maximumSize(maxKeys)
            .ticker(() -> clock.nowMicros() * 1_000L)
            .expireAfter(new EntryExpiry<S>())
            .build();
    }

    /** {@code limiter}, on the same states, with its rejections heard as {@code rejectedAs}. */
    private InMemoryRateLimiter(InMemoryRateLimiter<S> limiter, Outcome rejectedAs) {
        this.name = limiter.name;
        this.config = limiter.config;
        this.twin = limiter.twin;
        this.clock = limiter.clock;
        this.listener = limiter.listener;
        this.rejectedAs = rejectedAs;
        this.states = limiter.states;
    }

    @Override
    public RateLimiter reportingRejectionsAs(Outcome outcome) {
        return (outcome == rejectedAs) ? this : new InMemoryRateLimiter<>(this, outcome);
    }

    /** State of one key and the time (us) at which it is idle again. */
    record Entry<S>(S state, long idleAtMicros) {
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RateLimiterConfig config() {
        return config;
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
        states.asMap().compute(key, (k, entry) -> {
            // Time is read while the key is locked, as a script reads TIME: read before, a thread preempted
            // on its way in would decide at a stale time and set an expiry already past, so the next call
            // found the key expired and a full bucket.
            long now = clock.nowMicros();
            LocalAlgorithm.Step<S> step = twin.apply(entry != null ? entry.state() : null, config, now, permits);
            decision[0] = step.decision();
            if (!step.changed()) {
                return entry;
            }
            return (step.state() != null) ? new Entry<>(step.state(), now + step.ttlMicros()) : null;
        });
    }

    @Override
    public Quota quota(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        Entry<S> entry = states.getIfPresent(key);
        // No permits: the twin decides nothing and changes nothing; its reply is the quota.
        return Quota.of(twin.apply((entry != null) ? entry.state() : null, config, clock.nowMicros(), 0).decision());
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
        Entry<S> removed = states.asMap().remove(key);
        return removed != null && removed.idleAtMicros() > clock.nowMicros();
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
        return "InMemoryRateLimiter[" + name + ", " + config + "]";
    }

    private static final class EntryExpiry<S> implements Expiry<String, Entry<S>> {

        @Override
        public long expireAfterCreate(String key, Entry<S> entry, long currentTime) {
            return TimeUnit.MICROSECONDS.toNanos(entry.idleAtMicros()) - currentTime;
        }

        @Override
        public long expireAfterUpdate(String key, Entry<S> entry, long currentTime, long currentDuration) {
            return TimeUnit.MICROSECONDS.toNanos(entry.idleAtMicros()) - currentTime;
        }

        @Override
        public long expireAfterRead(String key, Entry<S> entry, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
