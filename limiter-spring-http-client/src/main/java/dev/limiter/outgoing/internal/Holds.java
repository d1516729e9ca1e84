package dev.limiter.outgoing.internal;

import java.time.Duration;

/**
 * Where the holds an upstream asked for are kept, per limiter and key: in Redis, so that every instance
 * sees them, or in the process with the memory backend.
 */
public interface Holds {

    /** How long {@code key} of limiter {@code limiter} is still held; zero when it is not. */
    Duration remaining(String limiter, String key);

    /**
     * Holds {@code key} of limiter {@code limiter} for {@code hold} from now, unless it is held longer
     * already.
     */
    void hold(String limiter, String key, Duration hold);

    /** Whether the methods block the calling thread on the network, so a reactive caller moves them off its thread. */
    default boolean blocks() {
        return false;
    }
}
