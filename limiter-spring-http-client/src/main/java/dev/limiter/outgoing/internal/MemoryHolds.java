package dev.limiter.outgoing.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.limiter.Decision;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiter;
import dev.limiter.internal.HoldingLimiter;

import org.jspecify.annotations.Nullable;

/**
 * Holds of one process, with the memory backend: the instance that saw the upstream's answer holds, no
 * other. A decision looks for a hold of its key in the process first, and asks the limiter only when
 * there is none. A hold is forgotten when it ends and the key is next asked about.
 */
public final class MemoryHolds implements Holds {

    private final ConcurrentMap<String, Long> until = new ConcurrentHashMap<>();

    private final LimiterClock clock;

    public MemoryHolds(LimiterClock clock) {
        this.clock = clock;
    }

    @Override
    public HoldingLimiter of(RateLimiter limiter) {
        return new Holding(limiter);
    }

    private Duration remaining(String limiter, String key) {
        String id = id(limiter, key);
        Long end = until.get(id);
        if (end == null) {
            return Duration.ZERO;
        }
        long left = end - clock.nowMicros();
        if (left <= 0) {
            until.remove(id, end);
            return Duration.ZERO;
        }
        return Duration.ofNanos(left * 1_000L);
    }

    private void hold(String limiter, String key, Duration hold) {
        long end = clock.nowMicros() + hold.toNanos() / 1_000L;
        until.merge(id(limiter, key), end, Math::max);
    }

    private static String id(String limiter, String key) {
        return limiter + '\u0000' + key;
    }

    /** One limiter's decisions, each after a look at the holds of this process. */
    private final class Holding implements HoldingLimiter {

        private final RateLimiter limiter;

        Holding(RateLimiter limiter) {
            this.limiter = limiter;
        }

        @Override
        public RateLimiter limiter() {
            return limiter;
        }

        @Override
        public Answer tryAcquire(String key, long permits) {
            Answer held = held(key);
            return (held != null) ? held : new Answer(limiter.tryAcquire(key, permits), false);
        }

        @Override
        public CompletionStage<Answer> tryAcquireAsync(String key, long permits) {
            Answer held = held(key);
            if (held != null) {
                return CompletableFuture.completedFuture(held);
            }
            return limiter.tryAcquireAsync(key, permits).thenApply((decision) -> new Answer(decision, false));
        }

        /** The hold's rejection of {@code key}, as a Redis script gives it; null when not held. */
        private @Nullable Answer held(String key) {
            Duration hold = remaining(limiter.name(), key);
            if (hold.isZero()) {
                return null;
            }
            return new Answer(new Decision(false, limiter.config().capacity(0), 0, hold, hold), true);
        }

        @Override
        public Duration holdRemaining(String key) {
            return remaining(limiter.name(), key);
        }

        @Override
        public void hold(String key, Duration hold) {
            MemoryHolds.this.hold(limiter.name(), key, hold);
        }

        @Override
        public boolean blocks() {
            return false;
        }
    }
}
