package dev.limiter;

import java.util.Arrays;
import java.util.List;

/** In-memory twin of {@code sliding-log.lua}; see docs/algorithms.md. */
final class SlidingLog implements LocalAlgorithm<SlidingLog.State> {

    private static final long[] NONE = {};

    /**
     * The log, compacted: the distinct times (ascending) at which permits were admitted, and for each
     * the running count of permits logged up to and including it, so the permits of any span are a
     * difference. Holds only times later than now minus the longest window, as the script does.
     */
    record State(long[] times, long[] totals) {
    }

    @Override
    public Step<State> apply(State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long[] times = (state != null) ? state.times() : NONE;
        long[] totals = (state != null) ? state.totals() : NONE;

        // Entries older than the longest window count for no limit: drop them, as the script does.
        int first = after(times, now - limits.get(n - 1).windowMicros());
        boolean dropped = first > 0;
        long origin = dropped ? totals[first - 1] : 0;
        times = Arrays.copyOfRange(times, first, times.length);
        totals = Arrays.copyOfRange(totals, first, totals.length);
        for (int k = 0; k < totals.length; k++) {
            totals[k] -= origin;
        }
        long total = (totals.length > 0) ? totals[totals.length - 1] : 0;

        long[] used = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            // Live entries are later than now - W (with the clock gone back, later than now too).
            int oldest = after(times, now - l.windowMicros());
            long base = (oldest > 0) ? totals[oldest - 1] : 0;
            used[i] = total - base;
            if (used[i] + permits > l.limit() && permits <= l.limit()) {
                // The k-th oldest live permit must leave first.
                long k = used[i] + permits - l.limit();
                int at = firstReaching(totals, oldest, base + k);
                retry[i] = times[at] + l.windowMicros() - now;
            }
        }
        Verdict verdict = Verdict.decide(config, permits, retry);
        if (verdict.allowed) {
            int at = after(times, now);
            if (at > 0 && times[at - 1] == now) {
                at--;
            }
            else {
                times = insert(times, at, now);
                totals = insert(totals, at, (at > 0) ? totals[at - 1] : 0);
            }
            for (int k = at; k < totals.length; k++) {
                totals[k] += permits;
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
        if (!verdict.allowed && !dropped) {
            return Step.unchanged(decision);
        }
        return new Step<>(decision, (times.length > 0) ? new State(times, totals) : null, true, Verdict.ttl(reset));
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

    private static long[] insert(long[] values, int at, long value) {
        long[] longer = new long[values.length + 1];
        System.arraycopy(values, 0, longer, 0, at);
        longer[at] = value;
        System.arraycopy(values, at, longer, at + 1, values.length - at);
        return longer;
    }
}
