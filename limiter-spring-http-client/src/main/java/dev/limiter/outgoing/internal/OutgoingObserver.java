package dev.limiter.outgoing.internal;

import java.time.Duration;

/** Hears what outgoing calls waited and the holds upstreams asked for: metrics. */
public interface OutgoingObserver {

    /** Hears nothing. */
    OutgoingObserver NONE = new OutgoingObserver() {
    };

    /**
     * A call under {@code limiter} waited {@code waited} (zero included) and then went out, or was given up.
     *
     * @param proceeded whether it went out
     */
    default void waited(String limiter, Duration waited, boolean proceeded) {
    }

    /** An upstream's answer held a key of {@code limiter} for {@code hold}. */
    default void held(String limiter, Duration hold) {
    }
}
