package dev.limiter;

/** In-memory twin of {@code gcra.lua}; see docs/algorithms.md. */
final class Gcra implements LocalAlgorithm<Object> {

    @Override
    public Step<Object> apply(Object state, RateLimiterConfig config, long now, long permits) {
        throw new UnsupportedOperationException("gcra is not implemented yet");
    }
}
