package dev.limiter.internal.algorithm;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimiterConfig;


/**
 * Combines the answers of a limiter's limits into one decision, the Java side of the rule the scripts
 * include from {@code verdict-limit.lua} and {@code verdict.lua} ({@link #decide}), and from
 * {@code report-limit.lua} and {@code reply.lua} ({@link #decision}), decisions and refunds alike: every
 * twin goes through here, so script and twin combine alike.
 */
final class Verdict {

    final boolean allowed;

    final long waitFor;

    /** 1-based index of the rejecting limit, 0 when allowed. */
    final int violated;

    /** Microseconds; -1 for never. */
    final long retryAfter;

    private Verdict(boolean allowed, long waitFor, int violated, long retryAfter) {
        this.allowed = allowed;
        this.waitFor = waitFor;
        this.violated = violated;
        this.retryAfter = retryAfter;
    }

    /**
     * @param permits permits asked for; 0 reads the quota (a verdict that changes nothing)
     * @param retry for each limit, microseconds until it admits the request (0: now)
     */
    static Verdict decide(RateLimiterConfig config, long permits, long[] retry) {
        return decide(config, permits, retry, config.maxWaitMicros());
    }

    /**
     * As {@link #decide(RateLimiterConfig, long, long[])}, letting the request wait up to {@code maxWait}
     * microseconds instead of the configuration's max-wait: {@link LocalAlgorithm#CHARGE_WAIT} for a charge.
     */
    static Verdict decide(RateLimiterConfig config, long permits, long[] retry, long maxWait) {
        // Asking for no permits reads the quota: nothing is taken, nothing written.
        if (permits == 0) {
            return READ;
        }
        for (int i = 0; i < retry.length; i++) {
            if (permits > config.capacity(i)) {
                return new Verdict(false, 0, i + 1, -1);
            }
        }
        long worst = 0;
        int violated = 0;
        for (int i = 0; i < retry.length; i++) {
            if (retry[i] > worst) {
                worst = retry[i];
                violated = i + 1;
            }
        }
        if (worst == 0) {
            return ALLOWED_NOW;
        }
        if (worst <= maxWait) {
            return new Verdict(true, worst, 0, 0);
        }
        return new Verdict(false, 0, violated, worst);
    }

    /** Allowed at once: the verdict of most requests, made once. */
    private static final Verdict ALLOWED_NOW = new Verdict(true, 0, 0, 0);

    /** The verdict of a read of the quota (no permits asked for), which takes nothing. */
    private static final Verdict READ = new Verdict(false, 0, 0, 0);

    /** The verdict of a refund, which decides nothing: its decision reports the quota after it. */
    static final Verdict REFUND = new Verdict(false, 0, 0, 0);

    /**
     * The decision, from each limit's remaining permits and reset-after once this verdict is applied.
     */
    Decision decision(RateLimiterConfig config, long[] remaining, long[] reset) {
        int reported = 0;
        long resetAfter = 0;
        for (int i = 0; i < remaining.length; i++) {
            if (remaining[i] < remaining[reported]) {
                reported = i;
            }
            resetAfter = Math.max(resetAfter, reset[i]);
        }
        return Decision.of(config, allowed ? 1 : 0, reported + 1, remaining[reported], resetAfter, retryAfter, violated, waitFor,
                reset[reported], DecisionSource.MEMORY);
    }

    /** How long the state matters: until every limit is whole again. */
    static long ttl(long[] reset) {
        long longest = 0;
        for (long r : reset) {
            longest = Math.max(longest, r);
        }
        return longest;
    }
}
