package dev.limiter.property;

/**
 * One request of a scenario: when it comes, for which key, for how many permits.
 *
 * @param timing how {@code micros} places the request in time
 * @param micros a step from the previous request (may be 0 or negative), or an offset from an
 *     anchor given by the key's last decision
 * @param key the user key
 * @param permits permits asked for, at least 1
 */
public record Op(Timing timing, long micros, String key, long permits) {

    /** Where a request lands in time. */
    public enum Timing {

        /** {@code micros} after the previous request (before it when negative: a clock going back). */
        STEP,

        /**
         * {@code micros} after the moment the key's last decision said to come back (its retry-after
         * when rejected, its wait when it had to wait); never before the previous request. Puts
         * requests exactly on the edges where rounding decides.
         */
        AFTER_RETRY,

        /** {@code micros} after the moment the key's last decision said it would be whole again; never before the previous request. */
        AFTER_RESET
    }

    public static Op step(long micros, String key, long permits) {
        return new Op(Timing.STEP, micros, key, permits);
    }

    public static Op afterRetry(long micros, String key, long permits) {
        return new Op(Timing.AFTER_RETRY, micros, key, permits);
    }

    public static Op afterReset(long micros, String key, long permits) {
        return new Op(Timing.AFTER_RESET, micros, key, permits);
    }

    Op with(long micros, String key, long permits) {
        return new Op(timing, micros, key, permits);
    }

    @Override
    public String toString() {
        String when = switch (timing) {
            case STEP -> (micros >= 0 ? "+" : "") + micros + "us";
            case AFTER_RETRY -> "retry" + (micros >= 0 ? "+" : "") + micros + "us";
            case AFTER_RESET -> "reset" + (micros >= 0 ? "+" : "") + micros + "us";
        };
        return when + " " + Report.key(key) + " x" + permits;
    }
}
