package dev.limiter.internal.algorithm;

import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/** In-memory twin of {@code fixed-window.lua}; see docs/algorithms.md. */
final class FixedWindow implements LocalAlgorithm<FixedWindow.State> {

    static final FixedWindow INSTANCE = new FixedWindow();

    /**
     * The index of the window holding {@code now}: its number since the epoch, or for a calendar window its
     * start in microseconds (both grow with time, which is all the decision compares them by).
     */
    static long index(LimitSpec limit, long now) {
        return (limit.calendar() != null) ? limit.calendar().windowStart(now) : Exact.floorDiv(now, limit.windowMicros());
    }

    /** The end, in microseconds since the epoch, of the window of index {@code index}. */
    static long end(LimitSpec limit, long index) {
        return (limit.calendar() != null) ? limit.calendar().windowEnd(index) : (index + 1) * limit.windowMicros();
    }

    /** Per limit: the index of the window counted and the permits taken in it. */
    record State(long[] index, long[] used) {
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        return apply(state, config, now, permits, config.maxWaitMicros());
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits, long maxWait) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long[] index = new long[n];
        long[] used = new long[n];
        long[] windowEnd = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            index[i] = index(l, now);
            used[i] = 0;
            // A clock that went back stands still in the newer window it counted: nothing is forgotten.
            if (state != null && state.index()[i] >= index[i]) {
                index[i] = state.index()[i];
                used[i] = state.used()[i];
            }
            windowEnd[i] = end(l, index[i]) - now;
            retry[i] = (used[i] + permits <= l.limit()) ? 0 : windowEnd[i];
        }
        Verdict verdict = Verdict.decide(config, permits, retry, maxWait);
        long[] remaining = new long[n];
        long[] reset = new long[n];
        for (int i = 0; i < n; i++) {
            if (verdict.allowed) {
                used[i] += permits;
            }
            remaining[i] = limits.get(i).limit() - used[i];
            reset[i] = (used[i] > 0) ? windowEnd[i] : 0;
        }
        Decision decision = verdict.decision(config, remaining, reset);
        return verdict.allowed ? new Step<>(decision, new State(index, used), true, Verdict.ttl(reset)) : Step.unchanged(decision);
    }

    @Override
    public Step<State> refund(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long[] index = new long[n];
        long[] used = new long[n];
        long[] remaining = new long[n];
        long[] reset = new long[n];
        boolean changed = false;
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            index[i] = index(l, now);
            // Only the current window (or a newer one, the clock having gone back) has permits to give back.
            if (state != null && state.index()[i] >= index[i]) {
                index[i] = state.index()[i];
                used[i] = state.used()[i];
            }
            if (used[i] > 0) {
                changed = true;
                used[i] = Math.max(0, used[i] - permits);
            }
            remaining[i] = l.limit() - used[i];
            reset[i] = (used[i] > 0) ? end(l, index[i]) - now : 0;
        }
        return Step.refunded(Verdict.REFUND.decision(config, remaining, reset), changed, new State(index, used), reset);
    }
}
