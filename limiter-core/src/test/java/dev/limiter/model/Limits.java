package dev.limiter.model;

import java.time.Duration;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;

/**
 * The "decision" table of docs/algorithms.md for window algorithms (capacity = limit, no waiting),
 * written out again from the text so the models do not share the combining code they check.
 */
final class Limits {

    private Limits() {
    }

    static long windowMicros(LimitSpec spec) {
        return spec.window().toNanos() / 1_000L;
    }

    static Duration micros(long micros) {
        return Duration.ofNanos(Math.multiplyExact(micros, 1_000L));
    }

    /** Whether a request of {@code permits} exceeds some limit's capacity: the first such limit, else -1. */
    static int tooLarge(List<LimitSpec> limits, long permits) {
        for (int i = 0; i < limits.size(); i++) {
            if (permits > limits.get(i).limit()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param retry per limit, microseconds until it admits the request (0: now); ignored when too large
     * @param remaining per limit, remaining permits once the decision is applied
     * @param reset per limit, microseconds until it is whole again once the decision is applied
     */
    static Decision decision(List<LimitSpec> limits, boolean allowed, int tooLarge, long[] retry, long[] remaining, long[] reset) {
        int reported = 0;
        long resetAfter = 0;
        for (int i = 0; i < limits.size(); i++) {
            if (remaining[i] < remaining[reported]) {
                reported = i;
            }
            resetAfter = Math.max(resetAfter, reset[i]);
        }
        Duration retryAfter = Duration.ZERO;
        LimitSpec violated = null;
        if (tooLarge >= 0) {
            retryAfter = Decision.NEVER;
            violated = limits.get(tooLarge);
        }
        else if (!allowed) {
            int worst = 0;
            for (int i = 1; i < limits.size(); i++) {
                if (retry[i] > retry[worst]) {
                    worst = i;
                }
            }
            retryAfter = micros(retry[worst]);
            violated = limits.get(worst);
        }
        return new Decision(allowed, limits.get(reported).limit(), Math.max(0, remaining[reported]), micros(resetAfter), retryAfter,
                Duration.ZERO, violated);
    }
}
