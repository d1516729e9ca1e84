package dev.limiter;

/** In-memory twin of {@code token-bucket.lua}; see the script for the algorithm. */
final class TokenBucket implements LocalAlgorithm<TokenBucket.State> {

    /** Tokens in the bucket at time {@code last} (microseconds). */
    record State(double tokens, long last) {
    }

    @Override
    public Step<State> apply(State state, LimitSpec spec, long now, long permits) {
        double limit = spec.limit();
        double window = spec.windowMicros();
        double burst = spec.burst();
        double tokens = burst;
        long last = now;
        if (state != null) {
            last = state.last();
            double elapsed = Math.max(0, now - last);
            tokens = Math.min(burst, state.tokens() + elapsed * limit / window);
        }
        long resetAfter = LocalAlgorithm.ceil((burst - tokens) * window / limit);
        if (permits > burst) {
            return Step.unchanged(Decision.of(false, spec.burst(), (long) Math.floor(tokens), resetAfter, -1));
        }
        if (tokens < permits) {
            long retryAfter = LocalAlgorithm.ceil((permits - tokens) * window / limit);
            return Step.unchanged(Decision.of(false, spec.burst(), (long) Math.floor(tokens), resetAfter, retryAfter));
        }
        tokens = tokens - permits;
        resetAfter = LocalAlgorithm.ceil((burst - tokens) * window / limit);
        State next = new State(tokens, Math.max(now, last));
        return new Step<>(Decision.of(true, spec.burst(), (long) Math.floor(tokens), resetAfter, 0), next, true, resetAfter);
    }
}
