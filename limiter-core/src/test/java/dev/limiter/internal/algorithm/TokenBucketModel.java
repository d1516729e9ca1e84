package dev.limiter.internal.algorithm;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * token-bucket from docs/algorithms.md: per limit, exact tokens {@code x} (full {@code = B} when
 * idle) refilled at {@code L/W} per microsecond since the last change {@code t₀}; with max-wait
 * {@code x} may go below 0 (debt).
 */
public final class TokenBucketModel extends KeyedModel<TokenBucketModel.Bucket[]> {

    /** Tokens at the time of the last change. */
    record Bucket(Rational tokens, long changedAt) {
    }

    public TokenBucketModel(RateLimiterConfig config) {
        super(config);
    }

    @Override
    List<LimitView> read(Bucket[] state, long now) {
        List<LimitView> views = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            views.add(new View(config.limits().get(l), refilled(state, l, now).tokens()));
        }
        return views;
    }

    @Override
    Bucket[] take(Bucket[] state, long now, long permits) {
        Bucket[] next = new Bucket[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            Bucket bucket = refilled(state, l, now);
            next[l] = new Bucket(bucket.tokens().minus(Rational.of(permits)), bucket.changedAt());
        }
        return next;
    }

    /** Refilled to now, then {@code x := min(B, x + c)}. */
    @Override
    Bucket[] give(Bucket[] state, long now, long permits) {
        Bucket[] next = new Bucket[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            Bucket bucket = refilled(state, l, now);
            next[l] = new Bucket(Rational.min(Rational.of(config.limits().get(l).burst()), bucket.tokens().plus(Rational.of(permits))),
                    bucket.changedAt());
        }
        return next;
    }

    /** {@code x ← min(B, x + (t − t₀)·L/W)}, {@code t₀ ← max(t, t₀)}: no refill for a clock that went back. */
    private Bucket refilled(Bucket[] state, int l, long now) {
        LimitSpec limit = config.limits().get(l);
        if (state == null) {
            return new Bucket(Rational.of(limit.burst()), now);
        }
        Bucket bucket = state[l];
        if (now <= bucket.changedAt()) {
            return bucket;
        }
        Rational refill = Rational.of(now - bucket.changedAt()).times(rate(limit));
        return new Bucket(Rational.min(Rational.of(limit.burst()), bucket.tokens().plus(refill)), now);
    }

    /** {@code L/W} permits per microsecond. */
    static Rational rate(LimitSpec limit) {
        return Rational.of(limit.limit(), windowMicros(limit));
    }

    private record View(LimitSpec limit, Rational tokens) implements LimitView {

        @Override
        public long capacity() {
            return limit.burst();
        }

        @Override
        public boolean admits(long permits) {
            return Rational.of(permits).isAtMost(tokens);
        }

        @Override
        public long retryAfter(long permits) {
            return Rational.of(permits).minus(tokens).dividedBy(rate(limit)).ceil().longValueExact();
        }

        @Override
        public long remaining() {
            return tokens.floor().longValueExact();
        }

        @Override
        public long resetAfter() {
            return Rational.of(limit.burst()).minus(tokens).dividedBy(rate(limit)).ceil().longValueExact();
        }
    }
}
