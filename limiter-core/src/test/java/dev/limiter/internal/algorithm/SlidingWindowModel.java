package dev.limiter.internal.algorithm;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * sliding-window from docs/algorithms.md: per limit, a count per epoch-aligned sub-window of
 * {@code S = W/N}; the live sub-windows are {@code j−N+1 … j}. A clock that went back before the
 * newest counted sub-window stands still in it, so no count leaves for negative elapsed time.
 */
public final class SlidingWindowModel extends KeyedModel<List<TreeMap<Long, Long>>> {

    public SlidingWindowModel(RateLimiterConfig config) {
        super(config);
    }

    @Override
    List<LimitView> read(List<TreeMap<Long, Long>> state, long now) {
        List<LimitView> views = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            TreeMap<Long, Long> counts = (state != null) ? state.get(l) : new TreeMap<>();
            views.add(new View(config.limits().get(l), config.subWindows(), counts, current(counts, l, now), now));
        }
        return views;
    }

    @Override
    List<TreeMap<Long, Long>> take(List<TreeMap<Long, Long>> state, long now, long permits) {
        List<TreeMap<Long, Long>> next = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            TreeMap<Long, Long> counts = new TreeMap<>((state != null) ? state.get(l) : new TreeMap<>());
            counts.merge(current(counts, l, now), permits, Long::sum);
            next.add(counts);
        }
        return next;
    }

    /** {@code c} permits are taken from the counting sub-windows, newest first, down to 0; a sub-window brought to 0 is deleted. */
    @Override
    List<TreeMap<Long, Long>> give(List<TreeMap<Long, Long>> state, long now, long permits) {
        List<TreeMap<Long, Long>> next = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            TreeMap<Long, Long> counts = new TreeMap<>(state.get(l));
            long j = current(counts, l, now);
            long left = permits;
            for (Long sub : new ArrayList<>(counts.subMap(j - config.subWindows() + 1, true, j, true).descendingKeySet())) {
                if (left == 0) {
                    break;
                }
                long count = counts.get(sub);
                long back = Math.min(count, left);
                left -= back;
                if (back == count) {
                    counts.remove(sub);
                }
                else {
                    counts.put(sub, count - back);
                }
            }
            next.add(counts);
        }
        return next;
    }

    /** The current sub-window {@code j} of limit {@code l}: never before the newest one counted. */
    private long current(TreeMap<Long, Long> counts, int l, long now) {
        long j = Math.floorDiv(now, windowMicros(config.limits().get(l)) / config.subWindows());
        return counts.isEmpty() ? j : Math.max(j, counts.lastKey());
    }

    private record View(LimitSpec limit, int subWindows, TreeMap<Long, Long> counts, long j, long now) implements LimitView {

        private long subWindowMicros() {
            return windowMicros(limit) / subWindows;
        }

        /** The live sub-windows {@code j−N+1 … j} that hold a count, oldest first. */
        private java.util.NavigableMap<Long, Long> liveCounts() {
            return counts.subMap(j - subWindows + 1, true, j, true);
        }

        private long live() {
            return liveCounts().values().stream().mapToLong(Long::longValue).sum();
        }

        @Override
        public long capacity() {
            return limit.limit();
        }

        @Override
        public boolean admits(long permits) {
            return live() + permits <= limit.limit();
        }

        @Override
        public long retryAfter(long permits) {
            // The least m such that the oldest m live sub-windows leaving makes room: only a sub-window
            // with a count can make room, so m is always one that holds a count.
            long n = live();
            long left = 0;
            for (var entry : liveCounts().entrySet()) {
                left += entry.getValue();
                if (n - left + permits <= limit.limit()) {
                    long m = entry.getKey() - (j - subWindows);
                    return (j + m) * subWindowMicros() - now;
                }
            }
            throw new IllegalStateException("permits above the limit have no retry time");
        }

        @Override
        public long remaining() {
            return limit.limit() - live();
        }

        @Override
        public long resetAfter() {
            var newest = liveCounts().lastEntry();
            return (newest != null) ? (newest.getKey() + subWindows) * subWindowMicros() - now : 0;
        }
    }
}
