package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.LimiterClock;

/** A {@link LimiterClock} that stands still until a test advances it, so time-dependent tests never sleep. */
public final class VirtualClock implements LimiterClock {

    /** An arbitrary instant (November 2023), so scripts see realistic epoch times. */
    private final AtomicLong micros = new AtomicLong(1_700_000_000_000_000L);

    @Override
    public long nowMicros() {
        return micros.get();
    }

    /** Moves time forward by {@code duration}. */
    public void advance(Duration duration) {
        micros.addAndGet(duration.toNanos() / 1_000L);
    }
}
