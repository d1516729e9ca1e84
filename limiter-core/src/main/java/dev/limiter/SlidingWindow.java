package dev.limiter;

import java.util.Arrays;
import java.util.List;

/** In-memory twin of {@code sliding-window.lua}; see docs/algorithms.md. */
final class SlidingWindow implements LocalAlgorithm<SlidingWindow.State> {

    /**
     * Per limit, its non-zero sub-window counts: {@code index[i][k]} is a sub-window (time / S), in
     * ascending order, and {@code count[i][k]} the permits taken in it. Only sub-windows that can still
     * count are kept, as the script keeps only such hash fields.
     */
    record State(long[][] index, long[][] count) {
    }

    @Override
    public Step<State> apply(State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long subWindows = config.subWindows();
        long[] size = new long[n];
        long[] current = new long[n];
        long[][] index = new long[n][];
        long[][] count = new long[n][];
        long[] used = new long[n];
        long[] retry = new long[n];
        boolean stale = false;
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            size[i] = l.windowMicros() / subWindows;
            current[i] = Exact.floorDiv(now, size[i]);
            // Sub-windows up to current - N have left every window: drop them, as the script deletes their fields.
            long[] storedIndex = (state != null) ? state.index()[i] : new long[0];
            long[] storedCount = (state != null) ? state.count()[i] : new long[0];
            int first = 0;
            while (first < storedIndex.length && storedIndex[first] <= current[i] - subWindows) {
                first++;
            }
            stale |= first > 0;
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
        Verdict verdict = Verdict.decide(config, permits, retry);
        long[] remaining = new long[n];
        long[] reset = new long[n];
        boolean empty = true;
        for (int i = 0; i < n; i++) {
            if (verdict.allowed) {
                add(index, count, i, current[i], permits);
                used[i] += permits;
            }
            int last = index[i].length - 1;
            remaining[i] = limits.get(i).limit() - used[i];
            reset[i] = (last >= 0) ? (index[i][last] + subWindows) * size[i] - now : 0;
            empty &= last < 0;
        }
        Decision decision = verdict.decision(config, remaining, reset);
        if (!verdict.allowed && !stale) {
            return Step.unchanged(decision);
        }
        return new Step<>(decision, empty ? null : new State(index, count), true, Verdict.ttl(reset));
    }

    /** Adds {@code permits} to sub-window {@code sub} of limit {@code i}, keeping the indexes ascending. */
    private static void add(long[][] index, long[][] count, int i, long sub, long permits) {
        int at = Arrays.binarySearch(index[i], sub);
        if (at >= 0) {
            count[i][at] += permits;
            return;
        }
        // Before a later sub-window only when the clock went back.
        int insert = -at - 1;
        index[i] = insert(index[i], insert, sub);
        count[i] = insert(count[i], insert, permits);
    }

    private static long[] insert(long[] values, int at, long value) {
        long[] longer = new long[values.length + 1];
        System.arraycopy(values, 0, longer, 0, at);
        longer[at] = value;
        System.arraycopy(values, at, longer, at + 1, values.length - at);
        return longer;
    }
}
