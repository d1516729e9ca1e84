package dev.limiter;

/** In-memory twin of {@code sliding-window.lua}; see docs/algorithms.md. */
final class SlidingWindow implements LocalAlgorithm<Object> {

    @Override
    public Step<Object> apply(Object state, RateLimiterConfig config, long now, long permits) {
        throw new UnsupportedOperationException("sliding-window is not implemented yet");
    }
}
