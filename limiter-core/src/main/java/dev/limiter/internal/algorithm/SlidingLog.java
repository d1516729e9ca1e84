package dev.limiter.internal.algorithm;

import java.util.Arrays;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/** In-memory twin of {@code sliding-log.lua}; see docs/algorithms.md. */
final class SlidingLog implements LocalAlgorithm<SlidingLog.State> {

    static final SlidingLog INSTANCE = new SlidingLog();

    private static final long[] NONE = {};

    /**
     * The log, compacted: the distinct times (ascending) at which permits were admitted, and for each
     * the running count of permits logged up to and including it, so the permits of any span are a
     * difference. After an admitted request, holds only times later than its standing time (below)
     * minus the longest window, as the script does.
     */
    record State(long[] times, long[] totals) {
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        return apply(state, config, now, permits, config.maxWaitMicros());
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits, long maxWait) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long[] times = (state != null) ? state.times() : NONE;
        long[] totals = (state != null) ? state.totals() : NONE;
        // A clock that went back stands still at the newest entry: the log is read at that time, so
        // nothing expires for negative elapsed time, and a new entry is logged there, after all others.
        // Durations are still measured from the real now.
        long standing = (times.length > 0) ? Math.max(now, times[times.length - 1]) : now;

        long total = (totals.length > 0) ? totals[totals.length - 1] : 0;

        long[] used = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            // Live entries are later than standing - W.
            int oldest = after(times, standing - l.windowMicros());
            long base = (oldest > 0) ? totals[oldest - 1] : 0;
            used[i] = total - base;
            if (used[i] + permits > l.limit() && permits <= l.limit()) {
                // The k-th oldest live permit must leave first.
                long k = used[i] + permits - l.limit();
                int at = firstReaching(totals, oldest, base + k);
                retry[i] = times[at] + l.windowMicros() - now;
            }
        }
        Verdict verdict = Verdict.decide(config, permits, retry, maxWait);
        if (verdict.allowed) {
            // The new entry is the newest from now on: entries older than the longest window at
            // standing can never count again. Drop them, as the script does.
            int first = after(times, standing - limits.get(n - 1).windowMicros());
            long origin = (first > 0) ? totals[first - 1] : 0;
            times = Arrays.copyOfRange(times, first, times.length);
            totals = Arrays.copyOfRange(totals, first, totals.length);
            for (int k = 0; k < totals.length; k++) {
                totals[k] -= origin;
            }
            total -= origin;
            // Logged at standing, the newest time of all.
            int last = times.length - 1;
            if (last >= 0 && times[last] == standing) {
                totals[last] += permits;
            }
            else {
                times = append(times, standing);
                totals = append(totals, total + permits);
            }
        }
        long newest = (times.length > 0) ? times[times.length - 1] : 0;
        long[] remaining = new long[n];
        long[] reset = new long[n];
        for (int i = 0; i < n; i++) {
            if (verdict.allowed) {
                used[i] += permits;
            }
            remaining[i] = limits.get(i).limit() - used[i];
            reset[i] = (used[i] > 0) ? newest + limits.get(i).windowMicros() - now : 0;
        }
        Decision decision = verdict.decision(config, remaining, reset);
        if (!verdict.allowed) {
            // Nothing changes, not even the entries that left at this time: should the clock go back
            // before it, they count again.
            return Step.unchanged(decision);
        }
        return new Step<>(decision, new State(times, totals), true, Verdict.ttl(reset));
    }

    @Override
    public Step<State> refund(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long[] times = (state != null) ? state.times() : NONE;
        long[] totals = (state != null) ? state.totals().clone() : NONE;
        long standing = (times.length > 0) ? Math.max(now, times[times.length - 1]) : now;
        long total = (totals.length > 0) ? totals[totals.length - 1] : 0;
        long[] used = new long[n];
        for (int i = 0; i < n; i++) {
            int oldest = after(times, standing - limits.get(i).windowMicros());
            used[i] = total - ((oldest > 0) ? totals[oldest - 1] : 0);
        }
        // From the newest entry back, while it still counts under the longest window.
        int live = after(times, standing - limits.get(n - 1).windowMicros());
        int end = times.length;
        long left = permits;
        long given = 0;
        while (left > 0 && end > live) {
            long cost = totals[end - 1] - ((end > 1) ? totals[end - 2] : 0);
            if (cost > left) {
                // The newest entry keeps its time with a smaller cost.
                totals[end - 1] -= left;
                given += left;
                left = 0;
            }
            else {
                given += cost;
                left -= cost;
                end--;
            }
        }
        times = Arrays.copyOf(times, end);
        totals = Arrays.copyOf(totals, end);
        long newest = (end > 0) ? times[end - 1] : 0;
        long[] remaining = new long[n];
        long[] reset = new long[n];
        for (int i = 0; i < n; i++) {
            // The permits given back are the newest: under every limit that counted them.
            used[i] = Math.max(0, used[i] - given);
            remaining[i] = limits.get(i).limit() - used[i];
            reset[i] = (used[i] > 0) ? newest + limits.get(i).windowMicros() - now : 0;
        }
        return Step.refunded(Verdict.REFUND.decision(config, remaining, reset), given > 0, new State(times, totals), reset);
    }

    /** Index of the first time later than {@code t}. */
    private static int after(long[] times, long t) {
        int lo = 0;
        int hi = times.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (times[mid] > t) {
                hi = mid;
            }
            else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** Index of the first running total, from {@code from} on, that reaches {@code target} (one does). */
    private static int firstReaching(long[] totals, int from, long target) {
        int lo = from;
        int hi = totals.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (totals[mid] >= target) {
                hi = mid;
            }
            else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    private static long[] append(long[] values, long value) {
        long[] longer = Arrays.copyOf(values, values.length + 1);
        longer[values.length] = value;
        return longer;
    }
}
