package dev.limiter.sample;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.LimiterClock;

/** A clock that stands still unless a test moves it, so limits never refill between two calls by accident. */
final class VirtualClock implements LimiterClock {

    /** 2027-01-15T08:20:34.567890Z: off every second and hour boundary, so windows start mid-way. */
    static final long START_MICROS = 1_800_001_234_567_890L;

    private final AtomicLong micros = new AtomicLong(START_MICROS);

    @Override
    public long nowMicros() {
        return micros.get();
    }

    void advance(Duration duration) {
        micros.addAndGet(duration.toNanos() / 1_000);
    }
}
