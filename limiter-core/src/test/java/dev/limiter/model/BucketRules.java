package dev.limiter.model;

import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * The rules of docs/algorithms.md that combine several bucket limits into one decision, written
 * from the text in {@link BigInteger} rather than ported from {@code lib.lua}, so the models check
 * the scripts instead of repeating them.
 */
final class BucketRules {

    private BucketRules() {
    }

    /**
     * @param violated 0-based index of the rejecting limit, -1 when allowed
     * @param retryAfter microseconds, -1 for never
     */
    record Verdict(boolean allowed, long waitFor, int violated, long retryAfter) {
    }

    /** ceil(a / b) for b > 0. */
    static BigInteger ceilDiv(BigInteger a, BigInteger b) {
        BigInteger[] qr = a.divideAndRemainder(b);
        return qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
    }

    /** floor(a / b) for b > 0. */
    static BigInteger floorDiv(BigInteger a, BigInteger b) {
        BigInteger[] qr = a.divideAndRemainder(b);
        return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
    }

    static BigInteger big(long value) {
        return BigInteger.valueOf(value);
    }

    static BigInteger windowMicros(LimitSpec limit) {
        return big(limit.window().getSeconds()).multiply(big(1_000_000)).add(big(limit.window().getNano() / 1_000));
    }

    /**
     * Allowed if every limit admits the request, or would after a wait of at most max-wait; never
     * when the cost exceeds a burst (that limit comes first).
     *
     * @param retry per limit, microseconds until it admits the request (0: now)
     */
    static Verdict decide(RateLimiterConfig config, long permits, BigInteger[] retry) {
        List<LimitSpec> limits = config.limits();
        for (int i = 0; i < limits.size(); i++) {
            if (permits > limits.get(i).burst()) {
                return new Verdict(false, 0, i, -1);
            }
        }
        int worst = 0;
        for (int i = 1; i < limits.size(); i++) {
            if (retry[i].compareTo(retry[worst]) > 0) {
                worst = i;
            }
        }
        long wait = retry[worst].longValueExact();
        if (wait == 0) {
            return new Verdict(true, 0, -1, 0);
        }
        long maxWait = config.maxWait().toNanos() / 1_000;
        return (wait <= maxWait) ? new Verdict(true, wait, -1, 0) : new Verdict(false, 0, worst, wait);
    }

    /**
     * The decision, reporting the limit with the fewest remaining permits (the first on a tie). Like
     * {@code lib.lua}, limits are compared before remaining is clamped at 0, so of two limits in debt
     * the deeper one is reported.
     */
    static Decision decision(RateLimiterConfig config, Verdict verdict, BigInteger[] remaining, BigInteger[] reset) {
        List<LimitSpec> limits = config.limits();
        int reported = 0;
        BigInteger resetAfter = BigInteger.ZERO;
        for (int i = 0; i < limits.size(); i++) {
            if (remaining[i].compareTo(remaining[reported]) < 0) {
                reported = i;
            }
            resetAfter = resetAfter.max(reset[i]);
        }
        return new Decision(verdict.allowed(), limits.get(reported).burst(), remaining[reported].max(BigInteger.ZERO).longValueExact(),
                micros(resetAfter.longValueExact()), verdict.retryAfter() < 0 ? Decision.NEVER : micros(verdict.retryAfter()),
                micros(verdict.waitFor()), verdict.violated() >= 0 ? limits.get(verdict.violated()) : null);
    }

    private static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }
}
