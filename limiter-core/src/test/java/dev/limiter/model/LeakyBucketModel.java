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
 * Reference model of the leaky bucket (docs/algorithms.md), in exact integers: the level {@code v}
 * of each limit is kept as {@code v * W}, so draining {@code elapsed * L / W} permits subtracts
 * {@code elapsed * L}. Keys never expire here: after reset-after a state means the same as none.
 */
public final class LeakyBucketModel {

    /** Per limit the level times its window; the time of the last change. */
    private record State(BigInteger[] scaledLevel, long last) {
    }

    private final RateLimiterConfig config;

    private final Map<String, State> states = new HashMap<>();

    public LeakyBucketModel(RateLimiterConfig config) {
        this.config = config;
    }

    public Decision tryAcquire(String key, long permits, long now) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        State state = states.get(key);
        long last = (state != null) ? state.last() : now;
        // A clock going backwards stands still: no drain, and the time of the last change stays.
        long at = Math.max(now, last);
        BigInteger[] level = new BigInteger[n];
        BigInteger[] retry = new BigInteger[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            BigInteger w = windowMicros(l);
            level[i] = (state == null) ? BigInteger.ZERO
                    : state.scaledLevel()[i].subtract(big(at - last).multiply(big(l.limit()))).max(BigInteger.ZERO);
            // ceil((v + c - B) * W / L), 0 when the permits fit.
            BigInteger excess = level[i].add(big(permits).subtract(big(l.burst())).multiply(w));
            retry[i] = ceilDiv(excess.max(BigInteger.ZERO), big(l.limit()));
        }
        BucketRules.Verdict verdict = BucketRules.decide(config, permits, retry);
        BigInteger[] remaining = new BigInteger[n];
        BigInteger[] reset = new BigInteger[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            BigInteger w = windowMicros(l);
            if (verdict.allowed()) {
                level[i] = level[i].add(big(permits).multiply(w));
            }
            remaining[i] = floorDiv(big(l.burst()).multiply(w).subtract(level[i]), w);
            reset[i] = ceilDiv(level[i], big(l.limit()));
        }
        if (verdict.allowed()) {
            states.put(key, new State(level, at));
        }
        return BucketRules.decision(config, verdict, remaining, reset);
    }
}
