package dev.limiter.outgoing.internal;

import dev.limiter.RateLimiter;
import dev.limiter.internal.HoldingLimiter;

/**
 * Where the holds an upstream asked for are kept, per limiter and key: in Redis, read by each decision's
 * own script so that every instance sees them, or in the process with the memory backend.
 */
public interface Holds {

    /** The decisions of {@code limiter} that respect the holds of its keys, and the holds' store. */
    HoldingLimiter of(RateLimiter limiter);
}
