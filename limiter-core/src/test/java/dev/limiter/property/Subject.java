package dev.limiter.property;

import dev.limiter.Decision;

/** One implementation under comparison, with the state of one run; time is passed with every request. */
@FunctionalInterface
public interface Subject extends AutoCloseable {

    Decision tryAcquire(String key, long permits, long nowMicros);

    /** Releases what the run left behind (Redis keys, for instance). */
    @Override
    default void close() {
    }
}
