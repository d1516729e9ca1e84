package dev.limiter.internal.algorithm;

import java.util.Arrays;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/** In-memory twin of {@code sliding-window.lua}; see docs/algorithms.md. */
final class SlidingWindow implements LocalAlgorithm<SlidingWindow.State> {

    static final SlidingWindow INSTANCE = new SlidingWindow();

    /**
     * Per limit, its non-zero sub-window counts: {@code index[i][k]} is a sub-window (time / S), in
     * ascending order, and {@code count[i][k]} the permits taken in it. Only sub-windows that can still
     * count are kept, as the script keeps only such hash fields.
     */
    record State(long[][] index, long[][] count) {
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        return apply(state, config, now, permits, config.maxWaitMicros());
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits, long maxWait) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long subWindows = config.subWindows();
        long[] size = new long[n];
        long[] current = new long[n];
        long[][] index = new long[n][];
        long[][] count = new long[n][];
        long[] used = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            size[i] = l.windowMicros() / subWindows;
            current[i] = Exact.floorDiv(now, size[i]);
            long[] storedIndex = (state != null) ? state.index()[i] : new long[0];
            long[] storedCount = (state != null) ? state.count()[i] : new long[0];
            // A clock that went back stands still in the newest sub-window counted: nothing leaves for
            // negative elapsed time, and new permits go into that sub-window.
            if (storedIndex.length > 0) {
                current[i] = Math.max(current[i], storedIndex[storedIndex.length - 1]);
            }
            // Sub-windows up to current - N have left every window: they count no more. An admitted
            // request drops them with the new state, as the script deletes their fields then.
            int first = 0;
            while (first < storedIndex.length && storedIndex[first] <= current[i] - subWindows) {
                first++;
            }
            index[i] = Arrays.copyOfRange(storedIndex, first, storedIndex.length);
            count[i] = Arrays.copyOfRange(storedCount, first, storedCount.length);
            for (long c : count[i]) {
                used[i] += c;
            }
            if (used[i] + permits > l.limit() && permits <= l.limit()) {
                // The request fits once enough of the oldest sub-windows have left: s leaves at (s + N)·S.
                long left = 0;
                for (int k = 0; k < index[i].length; k++) {
                    left += count[i][k];
                    if (used[i] - left + permits <= l.limit()) {
                        retry[i] = (index[i][k] + subWindows) * size[i] - now;
                        break;
                    }
                }
            }
        }
        Verdict verdict = Verdict.decide(config, permits, retry, maxWait);
        long[] remaining = new long[n];
        long[] reset = new long[n];
        for (int i = 0; i < n; i++) {
            if (verdict.allowed) {
                add(index, count, i, current[i], permits);
                used[i] += permits;
            }
            int last = index[i].length - 1;
            remaining[i] = limits.get(i).limit() - used[i];
            reset[i] = (last >= 0) ? (index[i][last] + subWindows) * size[i] - now : 0;
        }
        Decision decision = verdict.decision(config, remaining, reset);
        if (!verdict.allowed) {
            // Nothing changes, not even the sub-windows that left at this time: should the clock go
            // back before it, they count again.
            return Step.unchanged(decision);
        }
        return new Step<>(decision, new State(index, count), true, Verdict.ttl(reset));
    }

    @Override
    public Step<State> refund(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long subWindows = config.subWindows();
        long[][] index = new long[n][];
        long[][] count = new long[n][];
        long[] remaining = new long[n];
        long[] reset = new long[n];
        boolean changed = false;
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            long size = l.windowMicros() / subWindows;
            long current = Exact.floorDiv(now, size);
            long[] storedIndex = (state != null) ? state.index()[i] : new long[0];
            long[] counts = (state != null) ? state.count()[i].clone() : new long[0];
            if (storedIndex.length > 0) {
                current = Math.max(current, storedIndex[storedIndex.length - 1]);
            }
            // From the newest sub-window back, among those that still count.
            long left = permits;
            long used = 0;
            long newest = Long.MIN_VALUE;
            for (int k = storedIndex.length - 1; k >= 0 && storedIndex[k] > current - subWindows; k--) {
                if (left > 0) {
                    changed = true;
                    long taken = Math.min(counts[k], left);
                    left -= taken;
                    counts[k] -= taken;
                }
                if (counts[k] > 0) {
                    used += counts[k];
                    newest = Math.max(newest, storedIndex[k]);
                }
            }
            // A count brought to 0 goes, as the script deletes its field; the others stay as they are.
            int kept = 0;
            index[i] = new long[storedIndex.length];
            count[i] = new long[storedIndex.length];
            for (int k = 0; k < storedIndex.length; k++) {
                if (counts[k] > 0) {
                    index[i][kept] = storedIndex[k];
                    count[i][kept] = counts[k];
                    kept++;
                }
            }
            index[i] = Arrays.copyOf(index[i], kept);
            count[i] = Arrays.copyOf(count[i], kept);
            remaining[i] = l.limit() - used;
            reset[i] = (used > 0) ? (newest + subWindows) * size - now : 0;
        }
        return Step.refunded(Verdict.REFUND.decision(config, remaining, reset), changed, new State(index, count), reset);
    }

    /**
     * Adds {@code permits} to sub-window {@code sub} of limit {@code i}, which is never older than a
     * kept one: it is the newest, or becomes it.
     */
    private static void add(long[][] index, long[][] count, int i, long sub, long permits) {
        int last = index[i].length - 1;
        if (last >= 0 && index[i][last] == sub) {
            count[i][last] += permits;
            return;
        }
        index[i] = append(index[i], sub);
        count[i] = append(count[i], permits);
    }

    private static long[] append(long[] values, long value) {
        long[] longer = Arrays.copyOf(values, values.length + 1);
        longer[values.length] = value;
        return longer;
    }
}
