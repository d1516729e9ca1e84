package dev.limiter;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that only moves when a test says so, so time-dependent behaviour needs no sleeping. */
final class VirtualClock implements LimiterClock {

    /**
     * 2023-11-14T22:13:20Z: a multiple of every window used in the tests (1s, 10s, 1h), so a test that
     * adds an offset knows exactly where the epoch-aligned window ends.
     */
    static final long EPOCH_ALIGNED_START = 1_700_000_000_000_000L;

    private final AtomicLong micros;

    VirtualClock(long startMicros) {
        this.micros = new AtomicLong(startMicros);
    }

    VirtualClock() {
        this(EPOCH_ALIGNED_START);
    }

    @Override
    public long nowMicros() {
        return micros.get();
    }

    VirtualClock advance(Duration duration) {
        return advanceMicros(duration.toNanos() / 1_000L);
    }

    VirtualClock advanceMicros(long delta) {
        micros.addAndGet(delta);
        return this;
    }

    VirtualClock set(long nowMicros) {
        micros.set(nowMicros);
        return this;
    }
}
