package dev.limiter.internal.algorithm;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * gcra from docs/algorithms.md: per limit, an exact theoretical arrival time {@code τ} ({@code = t}
 * when idle) and the emission interval {@code T = W/L}. A clock that went back stands still: the
 * formulas read {@code t = max(now, the latest time seen)}, as the other bucket algorithms do.
 */
public final class GcraModel extends KeyedModel<GcraModel.State> {

    /** Per limit the arrival time, and the latest time the key was decided at. */
    record State(Rational[] tat, long latest) {
    }

    public GcraModel(RateLimiterConfig config) {
        super(config);
    }

    /** The time the formulas read: now, or the latest time seen if the clock went back. */
    private static long standing(State state, long now) {
        return (state != null) ? Math.max(now, state.latest()) : now;
    }

    @Override
    List<LimitView> read(State state, long now) {
        long t = standing(state, now);
        List<LimitView> views = new ArrayList<>();
        for (int l = 0; l < config.limits().size(); l++) {
            views.add(new View(config.limits().get(l), (state != null) ? state.tat()[l] : Rational.of(t), Rational.of(t)));
        }
        return views;
    }

    @Override
    State take(State state, long now, long permits) {
        long t = standing(state, now);
        Rational[] next = new Rational[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            View view = new View(config.limits().get(l), (state != null) ? state.tat()[l] : Rational.of(t), Rational.of(t));
            next[l] = view.arrival(permits);
        }
        return new State(next, t);
    }

    /** {@code τ := max(t, τ − c·T)}: back by {@code c} emission intervals, never before now. */
    @Override
    State give(State state, long now, long permits) {
        long t = standing(state, now);
        Rational[] next = new Rational[config.limits().size()];
        for (int l = 0; l < next.length; l++) {
            LimitSpec limit = config.limits().get(l);
            Rational back = Rational.of(windowMicros(limit), limit.limit()).times(permits);
            next[l] = Rational.max(Rational.of(t), state.tat()[l].minus(back));
        }
        return new State(next, t);
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
