package dev.limiter.internal.algorithm;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * sliding-log from docs/algorithms.md: one log of the times of admitted permits per key, shared by
 * its limits; a limit counts the entries {@code e > t − W}. Entries of one request are kept as one
 * run of {@code c} equal times, so huge costs stay cheap. A clock that went back before the newest
 * entry stands still at it: no entry expires, and a new one is logged there, for negative elapsed time.
 */
public final class SlidingLogModel extends KeyedModel<List<SlidingLogModel.Entries>> {

    /** {@code count} entries logged at {@code time}. */
    record Entries(long time, long count) {
    }

    public SlidingLogModel(RateLimiterConfig config) {
        super(config);
    }

    @Override
    List<LimitView> read(List<Entries> log, long now) {
        List<Entries> entries = (log != null) ? log : List.of();
        long standing = standing(entries, now);
        List<LimitView> views = new ArrayList<>();
        for (LimitSpec limit : config.limits()) {
            List<Entries> live = new ArrayList<>();
            for (Entries e : entries) {
                if (e.time() > standing - windowMicros(limit)) {
                    live.add(e);
                }
            }
            views.add(new View(limit, live, now));
        }
        return views;
    }

    @Override
    List<Entries> take(List<Entries> log, long now, long permits) {
        List<Entries> next = new ArrayList<>((log != null) ? log : List.of());
        long standing = standing(next, now);
        // Entries older than the longest window count for no limit again (time never goes below standing).
        long longest = windowMicros(config.limits().get(config.limits().size() - 1));
        next.removeIf(e -> e.time() <= standing - longest);
        next.add(new Entries(standing, permits));
        return next;
    }

    /**
     * The newest entries that still count under the longest window are dropped, up to {@code c} permits;
     * an entry given back in part keeps its time with a smaller cost.
     */
    @Override
    List<Entries> give(List<Entries> log, long now, long permits) {
        List<Entries> next = new ArrayList<>(log);
        long counting = standing(next, now) - windowMicros(config.limits().get(config.limits().size() - 1));
        long left = permits;
        while (left > 0 && !next.isEmpty() && next.get(next.size() - 1).time() > counting) {
            Entries newest = next.remove(next.size() - 1);
            if (newest.count() > left) {
                next.add(new Entries(newest.time(), newest.count() - left));
                left = 0;
            }
            else {
                left -= newest.count();
            }
        }
        return next;
    }

    /** The time the log is read at: now, or the newest entry if the clock went back before it. */
    private static long standing(List<Entries> log, long now) {
        return log.isEmpty() ? now : Math.max(now, log.get(log.size() - 1).time());
    }

    /** One limit over its live entries, oldest first. */
    private record View(LimitSpec limit, List<Entries> live, long now) implements LimitView {

        private long count() {
            return live.stream().mapToLong(Entries::count).sum();
        }

        @Override
        public long capacity() {
            return limit.limit();
        }

        @Override
        public boolean admits(long permits) {
            return count() + permits <= limit.limit();
        }

        @Override
        public long retryAfter(long permits) {
            long k = count() + permits - limit.limit();
            long seen = 0;
            for (Entries e : live) {
                seen += e.count();
                if (seen >= k) {
                    return e.time() + windowMicros(limit) - now;
                }
            }
            throw new IllegalStateException("permits above the limit have no retry time");
        }

        @Override
        public long remaining() {
            return limit.limit() - count();
        }

        @Override
        public long resetAfter() {
            return live.isEmpty() ? 0 : live.get(live.size() - 1).time() + windowMicros(limit) - now;
        }
    }
}
