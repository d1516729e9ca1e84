package dev.limiter.property;

/**
 * Thrown by a subject whose state Redis dropped in real time (a TTL of a millisecond or two ran out
 * while the test's virtual clock stood still): the rest of that scenario cannot be compared fairly,
 * so the run stops there without counting as a disagreement.
 */
public final class ExpiredInRealTime extends RuntimeException {

    public ExpiredInRealTime(String message) {
        super(message, null, false, false);
    }
}
