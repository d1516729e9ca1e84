package dev.limiter.sample.webflux;

import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.LimiterClock;

/** A clock that stands still, so limits never refill between two calls by accident. */
final class VirtualClock implements LimiterClock {

    /** 2027-01-15T08:20:30Z: 30 s into a minute, so a fixed window of a minute ends 30 s later. */
    static final long START_MICROS = 1_800_001_230_000_000L;

    private final AtomicLong micros = new AtomicLong(START_MICROS);

    @Override
    public long nowMicros() {
        return micros.get();
    }
}
