package dev.limiter.model;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * gcra from docs/algorithms.md: per limit, an exact theoretical arrival time {@code τ} ({@code = t}
 * when idle) and the emission interval {@code T = W/L}. The formulas are followed literally, also
 * for a clock that went back (they read {@code max(τ, t)} and {@code t} itself).
 */
public final class GcraModel extends KeyedModel<Rational[]> {

    public GcraModel(RateLimiterConfig config) {
        super(config);
    }

    @Override
    List<LimitView> read(Rational[] state, long now) {
        List<LimitView> views = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            views.add(new View(config.limits().get(l), (state != null) ? state[l] : Rational.of(now), Rational.of(now)));
        }
        return views;
    }

    @Override
    Rational[] take(Rational[] state, long now, long permits) {
        Rational[] next = new Rational[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            View view = new View(config.limits().get(l), (state != null) ? state[l] : Rational.of(now), Rational.of(now));
            next[l] = view.arrival(permits);
        }
        return next;
    }

    private record View(LimitSpec limit, Rational tat, Rational now) implements LimitView {

        /** {@code T = W/L}. */
        private Rational interval() {
            return Rational.of(windowMicros(limit), limit.limit());
        }

        /** {@code B·T}. */
        private Rational tolerance() {
            return interval().times(limit.burst());
        }

        /** {@code τ' = max(τ, t) + c·T}. */
        Rational arrival(long permits) {
            return Rational.max(tat, now).plus(interval().times(permits));
        }

        @Override
        public long capacity() {
            return limit.burst();
        }

        @Override
        public boolean admits(long permits) {
            return arrival(permits).minus(now).isAtMost(tolerance());
        }

        @Override
        public long retryAfter(long permits) {
            return arrival(permits).minus(now).minus(tolerance()).ceil().longValueExact();
        }

        @Override
        public long remaining() {
            Rational ahead = Rational.max(tat, now).minus(now);
            return tolerance().minus(ahead).dividedBy(interval()).floor().longValueExact();
        }

        @Override
        public long resetAfter() {
            return Rational.max(tat, now).minus(now).ceil().longValueExact();
        }
    }
}
