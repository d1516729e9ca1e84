package dev.limiter.internal.algorithm;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * fixed-window from docs/algorithms.md: per limit, the epoch-aligned window index {@code i = ⌊t/W⌋}
 * and the count {@code n} taken in it. A clock that went back into an earlier window stands still
 * in the stored one: its count is not forgotten for negative elapsed time.
 */
public final class FixedWindowModel extends KeyedModel<FixedWindowModel.Window[]> {

    /** The window a limit last took permits in, and how many. */
    record Window(long index, long count) {
    }

    public FixedWindowModel(RateLimiterConfig config) {
        super(config);
    }

    @Override
    List<LimitView> read(Window[] state, long now) {
        List<LimitView> views = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            views.add(new View(config.limits().get(l), current(state, l, now), now));
        }
        return views;
    }

    @Override
    Window[] take(Window[] state, long now, long permits) {
        Window[] next = new Window[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            Window window = current(state, l, now);
            next[l] = new Window(window.index(), window.count() + permits);
        }
        return next;
    }

    /** {@code n := max(0, n − c)} in the current window; a stored window that is not the current one has nothing to give back. */
    @Override
    Window[] give(Window[] state, long now, long permits) {
        Window[] next = new Window[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            Window window = current(state, l, now);
            next[l] = new Window(window.index(), Math.max(0, window.count() - permits));
        }
        return next;
    }

    /** The window limit {@code l} is in at {@code now}: a count from an older index counts as 0. */
    private Window current(Window[] state, int l, long now) {
        long index = Math.floorDiv(now, windowMicros(config.limits().get(l)));
        if (state == null || state[l].index() < index) {
            return new Window(index, 0);
        }
        return state[l];
    }

    private record View(LimitSpec limit, Window window, long now) implements LimitView {

        private long toWindowEnd() {
            return (window.index() + 1) * windowMicros(limit) - now;
        }

        @Override
        public long capacity() {
            return limit.limit();
        }

        @Override
        public boolean admits(long permits) {
            return window.count() + permits <= limit.limit();
        }

        @Override
        public long retryAfter(long permits) {
            return toWindowEnd();
        }

        @Override
        public long remaining() {
            return limit.limit() - window.count();
        }

        @Override
        public long resetAfter() {
            return window.count() > 0 ? toWindowEnd() : 0;
        }
    }
}
