package dev.limiter.model;

import static dev.limiter.model.BucketRules.big;
import static dev.limiter.model.BucketRules.ceilDiv;
import static dev.limiter.model.BucketRules.floorDiv;
import static dev.limiter.model.BucketRules.windowMicros;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * Reference model of GCRA (docs/algorithms.md), in exact integers: each limit's theoretical
 * arrival time {@code tau} is kept as {@code tau * L}, so the emission interval {@code T = W/L}
 * becomes {@code W}. Keys never expire here: after reset-after a state means the same as none.
 */
public final class GcraModel {

    /** Per limit tau times its limit; the latest time of a change. */
    private record State(BigInteger[] scaledTau, long last) {
    }

    private final RateLimiterConfig config;

    private final Map<String, State> states = new HashMap<>();

    public GcraModel(RateLimiterConfig config) {
        this.config = config;
    }

    public Decision tryAcquire(String key, long permits, long now) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        State state = states.get(key);
        // A clock going backwards stands still: decisions are taken at the latest time of a change.
        long at = Math.max(now, (state != null) ? state.last() : now);
        BigInteger[] tau = new BigInteger[n];
        BigInteger[] retry = new BigInteger[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            BigInteger scaledAt = big(at).multiply(big(l.limit()));
            // max(tau, t)
            tau[i] = (state == null) ? scaledAt : state.scaledTau()[i].max(scaledAt);
            // ceil(tau' - t - B*T) with tau' = max(tau, t) + c*T, 0 when it fits the tolerance.
            BigInteger next = tau[i].add(big(permits).multiply(windowMicros(l)));
            BigInteger excess = next.subtract(scaledAt).subtract(big(l.burst()).multiply(windowMicros(l)));
            retry[i] = ceilDiv(excess.max(BigInteger.ZERO), big(l.limit()));
        }
        BucketRules.Verdict verdict = BucketRules.decide(config, permits, retry);
        BigInteger[] remaining = new BigInteger[n];
        BigInteger[] reset = new BigInteger[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            BigInteger w = windowMicros(l);
            if (verdict.allowed()) {
                tau[i] = tau[i].add(big(permits).multiply(w));
            }
            BigInteger ahead = tau[i].subtract(big(at).multiply(big(l.limit()))); // (tau - t) * L
            // floor((B*T - (tau - t)) / T) = floor((B*W - (tau - t)*L) / W)
            remaining[i] = floorDiv(big(l.burst()).multiply(w).subtract(ahead), w);
            reset[i] = ceilDiv(ahead, big(l.limit()));
        }
        if (verdict.allowed()) {
            states.put(key, new State(tau, at));
        }
        return BucketRules.decision(config, verdict, remaining, reset);
    }
}
