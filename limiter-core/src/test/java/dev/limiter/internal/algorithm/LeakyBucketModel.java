package dev.limiter.internal.algorithm;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * leaky-bucket from docs/algorithms.md: per limit, an exact level {@code v} (0 when idle) draining
 * at {@code L/W} per microsecond since the last change {@code t₀}; with max-wait {@code v} may rise
 * above {@code B}.
 */
public final class LeakyBucketModel extends KeyedModel<LeakyBucketModel.Level[]> {

    /** Level at the time of the last change. */
    record Level(Rational level, long changedAt) {
    }

    public LeakyBucketModel(RateLimiterConfig config) {
        super(config);
    }

    @Override
    List<LimitView> read(Level[] state, long now) {
        List<LimitView> views = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            views.add(new View(config.limits().get(l), drained(state, l, now).level()));
        }
        return views;
    }

    @Override
    Level[] take(Level[] state, long now, long permits) {
        Level[] next = new Level[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            Level level = drained(state, l, now);
            next[l] = new Level(level.level().plus(Rational.of(permits)), level.changedAt());
        }
        return next;
    }

    /** Drained to now, then {@code v := max(0, v − c)}. */
    @Override
    Level[] give(Level[] state, long now, long permits) {
        Level[] next = new Level[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            Level level = drained(state, l, now);
            next[l] = new Level(Rational.max(Rational.ZERO, level.level().minus(Rational.of(permits))), level.changedAt());
        }
        return next;
    }

    /** {@code v ← max(0, v − (t − t₀)·L/W)}: no drain for a clock that went back. */
    private Level drained(Level[] state, int l, long now) {
        if (state == null) {
            return new Level(Rational.ZERO, now);
        }
        Level level = state[l];
        if (now <= level.changedAt()) {
            return level;
        }
        Rational drain = Rational.of(now - level.changedAt()).times(TokenBucketModel.rate(config.limits().get(l)));
        return new Level(Rational.max(Rational.ZERO, level.level().minus(drain)), now);
    }

    private record View(LimitSpec limit, Rational level) implements LimitView {

        private Rational burst() {
            return Rational.of(limit.burst());
        }

        @Override
        public long capacity() {
            return limit.burst();
        }

        @Override
        public boolean admits(long permits) {
            return level.plus(Rational.of(permits)).isAtMost(burst());
        }

        @Override
        public long retryAfter(long permits) {
            return level.plus(Rational.of(permits)).minus(burst()).dividedBy(TokenBucketModel.rate(limit)).ceil().longValueExact();
        }

        @Override
        public long remaining() {
            return burst().minus(level).floor().longValueExact();
        }

        @Override
        public long resetAfter() {
            return level.dividedBy(TokenBucketModel.rate(limit)).ceil().longValueExact();
        }
    }
}
