package dev.limiter.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;

/**
 * Reference model of sliding-window, docs/algorithms.md read literally: per key and limit a map
 * from sub-window to count. Each call first forgets the sub-windows that left every window (as the
 * script deletes their fields); a count of a later sub-window, left by a clock that went back, stays.
 */
public final class SlidingWindowModel {

    private final List<LimitSpec> limits;

    private final long subWindows;

    private final Map<String, List<TreeMap<Long, Long>>> keys = new HashMap<>();

    public SlidingWindowModel(List<LimitSpec> limits, int subWindows) {
        this.limits = List.copyOf(limits);
        this.subWindows = subWindows;
    }

    public Decision tryAcquire(String key, long now, long permits) {
        List<TreeMap<Long, Long>> counts = keys.computeIfAbsent(key, k -> {
            List<TreeMap<Long, Long>> perLimit = new ArrayList<>();
            limits.forEach(l -> perLimit.add(new TreeMap<>()));
            return perLimit;
        });
        int n = limits.size();
        long[] size = new long[n];
        long[] j = new long[n];
        long[] used = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            size[i] = Limits.windowMicros(l) / subWindows;
            j[i] = Math.floorDiv(now, size[i]);
            TreeMap<Long, Long> live = counts.get(i);
            live.headMap(j[i] - subWindows, true).clear();
            used[i] = live.values().stream().mapToLong(Long::longValue).sum();
            // Least m >= 1 such that n - (counts of the oldest m sub-windows) + c <= L.
            if (used[i] + permits > l.limit() && permits <= l.limit()) {
                long gone = 0;
                for (long m = 1;; m++) {
                    gone += live.getOrDefault(j[i] - subWindows + m, 0L);
                    if (used[i] - gone + permits <= l.limit()) {
                        retry[i] = (j[i] + m) * size[i] - now;
                        break;
                    }
                }
            }
        }
        int tooLarge = Limits.tooLarge(limits, permits);
        boolean allowed = tooLarge < 0;
        for (long r : retry) {
            allowed &= r == 0;
        }
        long[] remaining = new long[n];
        long[] reset = new long[n];
        for (int i = 0; i < n; i++) {
            TreeMap<Long, Long> live = counts.get(i);
            if (allowed) {
                live.merge(j[i], permits, Long::sum);
                used[i] += permits;
            }
            remaining[i] = limits.get(i).limit() - used[i];
            reset[i] = live.isEmpty() ? 0 : (live.lastKey() + subWindows) * size[i] - now;
        }
        return Limits.decision(limits, allowed, tooLarge, retry, remaining, reset);
    }
}
