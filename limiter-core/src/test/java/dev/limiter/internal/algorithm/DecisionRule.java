package dev.limiter.internal.algorithm;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimiterConfig;

/**
 * How the limits of one limiter combine into one {@link Decision} ("The decision" and "Waiting" in
 * docs/algorithms.md), shared by every model so the algorithms differ only in their limit views.
 * Deliberately a second implementation of the rule, written from the documentation apart from the
 * main code's {@code Verdict} and the scripts' verdict and reply fragments, so that the agreement tests
 * compare independent readings of it; do not make it call them.
 */
final class DecisionRule {

    private DecisionRule() {
    }

    /**
     * Whether a request of {@code permits} passes every limit. A limit whose capacity it exceeds
     * rejects it for ever and is the violated limit (the first such); otherwise the violated limit is
     * the rejecting one with the largest retry-after, the first on a tie. With max-wait, a request
     * every limit admits after at most {@code maxWaitMicros} passes and waits that long.
     */
    static Admission admit(List<LimitView> limits, long permits, long maxWaitMicros) {
        for (int i = 0; i < limits.size(); i++) {
            if (permits > limits.get(i).capacity()) {
                return new Admission(false, 0, -1, i);
            }
        }
        int violated = -1;
        long retryAfter = 0;
        for (int i = 0; i < limits.size(); i++) {
            LimitView limit = limits.get(i);
            if (!limit.admits(permits)) {
                long retry = limit.retryAfter(permits);
                if (violated < 0 || retry > retryAfter) {
                    violated = i;
                    retryAfter = retry;
                }
            }
        }
        if (violated < 0) {
            return new Admission(true, 0, 0, -1);
        }
        if (maxWaitMicros > 0 && retryAfter <= maxWaitMicros) {
            return new Admission(true, retryAfter, 0, -1);
        }
        return new Admission(false, 0, retryAfter, violated);
    }

    /**
     * The decision reported for {@code admission}, {@code limits} being read after it: the limit with
     * the fewest remaining permits (the first on a tie) with its own reset-after, and the largest
     * reset-after of all.
     * "Fewest" compares the permits before they are bounded below by 0 ("its remaining permits
     * (never below 0)"): of two buckets in debt, the deeper one is reported, not the first.
     */
    static Decision decide(RateLimiterConfig config, Admission admission, List<LimitView> limits) {
        int reported = 0;
        long resetAfter = 0;
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).remaining() < limits.get(reported).remaining()) {
                reported = i;
            }
            resetAfter = Math.max(resetAfter, limits.get(i).resetAfter());
        }
        LimitView shown = limits.get(reported);
        Duration retryAfter = admission.allowed() ? Duration.ZERO
                : admission.retryAfter() < 0 ? Decision.NEVER : micros(admission.retryAfter());
        return new Decision(admission.allowed(), shown.capacity(), Math.max(0, shown.remaining()), micros(resetAfter),
                micros(shown.resetAfter()), retryAfter, micros(admission.waitFor()),
                admission.allowed() ? null : config.limits().get(admission.violated()), DecisionSource.MEMORY);
    }

    static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    static long micros(Duration duration) {
        return Math.addExact(Math.multiplyExact(duration.getSeconds(), 1_000_000L), duration.getNano() / 1_000L);
    }
}
