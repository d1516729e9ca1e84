package dev.limiter.outgoing.internal;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.limiter.LimiterClock;

/**
 * Holds of one process, with the memory backend: the instance that saw the upstream's answer holds, no
 * other. A hold is forgotten when it ends and the key is next asked about.
 */
public final class MemoryHolds implements Holds {

    private final ConcurrentMap<String, Long> until = new ConcurrentHashMap<>();

    private final LimiterClock clock;

    public MemoryHolds(LimiterClock clock) {
        this.clock = clock;
    }

    @Override
    public Duration remaining(String limiter, String key) {
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

    @Override
    public void hold(String limiter, String key, Duration hold) {
        long end = clock.nowMicros() + hold.toNanos() / 1_000L;
        until.merge(id(limiter, key), end, Math::max);
    }

    private static String id(String limiter, String key) {
        return limiter + '\u0000' + key;
    }
}
