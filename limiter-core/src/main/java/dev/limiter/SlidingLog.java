package dev.limiter;

/** In-memory twin of {@code sliding-log.lua}; see docs/algorithms.md. */
final class SlidingLog implements LocalAlgorithm<Object> {

    @Override
    public Step<Object> apply(Object state, RateLimiterConfig config, long now, long permits) {
        throw new UnsupportedOperationException("sliding-log is not implemented yet");
    }
}
