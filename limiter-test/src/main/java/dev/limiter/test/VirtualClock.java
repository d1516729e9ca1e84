package dev.limiter.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.LimiterClock;

/**
 * A clock that stands still until a test moves it, for limiters built with an explicit clock: windows
 * end and buckets refill when the test says, never by waiting. Safe to share between threads.
 */
public final class VirtualClock implements LimiterClock {

    /**
     * A fixed start: 1,700,000,000 s after the epoch, which is 20 s into a minute (not on a window
     * boundary); a test that needs a window to begin with it advances to the boundary first.
     */
    public static final long EPOCH_ALIGNED_START = 1_700_000_000_000_000L;

    private final AtomicLong micros;

    /** A clock at {@code startMicros}, microseconds since the epoch. */
    public VirtualClock(long startMicros) {
        this.micros = new AtomicLong(startMicros);
    }

    /** A clock at {@link #EPOCH_ALIGNED_START}. */
    public VirtualClock() {
        this(EPOCH_ALIGNED_START);
    }

    @Override
    public long nowMicros() {
        return micros.get();
    }

    /** Moves the clock forward by {@code duration}, in whole microseconds. */
    public VirtualClock advance(Duration duration) {
        return advanceMicros(duration.toNanos() / 1_000L);
    }

    /** Moves the clock by {@code delta} microseconds (backwards when negative). */
    public VirtualClock advanceMicros(long delta) {
        micros.addAndGet(delta);
        return this;
    }

    /** Sets the clock to {@code nowMicros}, microseconds since the epoch. */
    public VirtualClock set(long nowMicros) {
        micros.set(nowMicros);
        return this;
    }
}
