package dev.limiter.outgoing.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** How a blocking call waits its turn: the thread sleeps; tests that drive time pass their own. */
@FunctionalInterface
public interface Pause {

    /** Sleeps the thread. */
    Pause SLEEP = (duration) -> TimeUnit.NANOSECONDS.sleep(duration.toNanos());

    /** Waits {@code duration} on the calling thread. */
    void sleep(Duration duration) throws InterruptedException;
}
