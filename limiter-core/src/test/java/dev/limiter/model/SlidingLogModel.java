package dev.limiter.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;

/**
 * Reference model of sliding-log, docs/algorithms.md read literally: per key a sorted list with one
 * time per admitted permit. Each call first drops the entries older than the longest window.
 */
public final class SlidingLogModel {

    private final List<LimitSpec> limits;

    private final Map<String, List<Long>> keys = new HashMap<>();

    public SlidingLogModel(List<LimitSpec> limits) {
        this.limits = List.copyOf(limits);
    }

    public Decision tryAcquire(String key, long now, long permits) {
        List<Long> log = keys.computeIfAbsent(key, k -> new ArrayList<>());
        int n = limits.size();
        long longest = Limits.windowMicros(limits.get(n - 1));
        log.removeIf(e -> e <= now - longest);
        long[] used = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            long w = Limits.windowMicros(l);
            List<Long> live = log.stream().filter(e -> e > now - w).toList();
            used[i] = live.size();
            if (used[i] + permits > l.limit() && permits <= l.limit()) {
                long k = used[i] + permits - l.limit();
                retry[i] = live.get((int) k - 1) + w - now;
            }
        }
        int tooLarge = Limits.tooLarge(limits, permits);
        boolean allowed = tooLarge < 0;
        for (long r : retry) {
            allowed &= r == 0;
        }
        if (allowed) {
            for (long p = 0; p < permits; p++) {
                log.add(now);
            }
            Collections.sort(log);
        }
        long[] remaining = new long[n];
        long[] reset = new long[n];
        for (int i = 0; i < n; i++) {
            long w = Limits.windowMicros(limits.get(i));
            long live = log.stream().filter(e -> e > now - w).count();
            remaining[i] = limits.get(i).limit() - live;
            reset[i] = (live > 0) ? log.get(log.size() - 1) + w - now : 0;
        }
        return Limits.decision(limits, allowed, tooLarge, retry, remaining, reset);
    }

    /** Permits logged for {@code key} after its last call. */
    public int size(String key) {
        return keys.getOrDefault(key, List.of()).size();
    }
}
