package dev.limiter;

/** In-memory twin of {@code leaky-bucket.lua}; see docs/algorithms.md. */
final class LeakyBucket implements LocalAlgorithm<Object> {

    @Override
    public Step<Object> apply(Object state, RateLimiterConfig config, long now, long permits) {
        throw new UnsupportedOperationException("leaky-bucket is not implemented yet");
    }
}
