package dev.limiter;

import java.time.Instant;

/**
 * The time source of a limiter, in microseconds since the epoch. Production Redis limiters take time
 * from Redis itself; an explicit clock is for the in-memory backend and for tests that drive time.
 */
@FunctionalInterface
public interface LimiterClock {

    /** Current time in microseconds since the epoch. */
    long nowMicros();

    /** The system clock. */
    static LimiterClock system() {
        return () -> {
            Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
        };
    }
}
