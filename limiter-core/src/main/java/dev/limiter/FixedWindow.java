package dev.limiter;

/** In-memory twin of {@code fixed-window.lua}; see the script for the algorithm. */
final class FixedWindow implements LocalAlgorithm<FixedWindow.State> {

    /** Permits used in the window with the given index (now / window, rounded down). */
    record State(long index, long used) {
    }

    @Override
    public Step<State> apply(State state, LimitSpec spec, long now, long permits) {
        long limit = spec.limit();
        long window = spec.windowMicros();
        long index = (long) Math.floor((double) now / window);
        long resetAfter = (index + 1) * window - now;
        long used = (state != null && state.index() == index) ? state.used() : 0;
        if (permits > limit) {
            return Step.unchanged(Decision.of(false, limit, limit - used, resetAfter, -1));
        }
        if (used + permits > limit) {
            return Step.unchanged(Decision.of(false, limit, limit - used, resetAfter, resetAfter));
        }
        used += permits;
        return new Step<>(Decision.of(true, limit, limit - used, resetAfter, 0), new State(index, used), true, resetAfter);
    }
}
