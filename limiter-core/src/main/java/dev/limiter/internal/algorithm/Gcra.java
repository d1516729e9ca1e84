package dev.limiter.internal.algorithm;

import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/** In-memory twin of {@code gcra.lua}; see docs/algorithms.md. */
final class Gcra implements LocalAlgorithm<Gcra.State> {

    static final Gcra INSTANCE = new Gcra();

    /**
     * Per limit: the whole microseconds {@code a} of the theoretical arrival time and its fraction
     * {@code f} over {@code over}, the limit it was written under, so tau = a + f/over; {@code last}: the
     * latest time of a change, so that a clock going backwards stands still.
     */
    record State(long[] a, long[] f, long[] over, long last) {
    }

    /**
     * The fraction {@code f}/{@code over} of a microsecond after {@code a}, over L instead: rounded up,
     * so that a limiter retuned to another limit never admits early. Whole microseconds and fraction.
     */
    static Exact.QR overLimit(long a, long f, long over, LimitSpec l) {
        if (over == l.limit()) {
            return new Exact.QR(a, f);
        }
        Exact.QR scaled = Exact.mulDivMod(f, l.limit(), over);
        long fraction = scaled.q() + ((scaled.r() > 0) ? 1 : 0);
        return (fraction == l.limit()) ? new Exact.QR(a + 1, 0) : new Exact.QR(a, fraction);
    }

    /** tau + k * T, as whole microseconds and a fraction over L. */
    static Exact.QR addCells(long k, long a, long f, LimitSpec l) {
        Exact.QR cells = Exact.mulDivMod(k, l.windowMicros(), l.limit());
        Exact.QR carry = Exact.divmod(f + cells.r(), l.limit());
        return new Exact.QR(a + cells.q() + carry.q(), carry.r());
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        return apply(state, config, now, permits, config.maxWaitMicros());
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits, long maxWait) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long at = Math.max(now, (state != null) ? state.last() : now);
        long[] a = new long[n];
        long[] f = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            if (state == null || state.a()[i] < at) {
                // tau <= at: max(tau, at) = at.
                a[i] = at;
                f[i] = 0;
            }
            else {
                Exact.QR tau = overLimit(state.a()[i], state.f()[i], state.over()[i], l);
                a[i] = tau.q();
                f[i] = tau.r();
            }
            // A cost above the burst is never admitted (decide says so); its retry is not needed.
            if (permits <= l.burst()) {
                // ceil(tau' - at - B*T), tau' = max(tau, at) + c*T: 0 or less when the cells fit the tolerance.
                Exact.QR next = addCells(permits, a[i], f[i], l);
                Exact.QR tolerance = Exact.mulDivMod(l.burst(), l.windowMicros(), l.limit());
                retry[i] = Math.max(0, next.q() - at - tolerance.q() + Exact.ceilDiv(next.r() - tolerance.r(), l.limit()));
            }
        }
        Verdict verdict = Verdict.decide(config, permits, retry, maxWait);
        long[] remaining = new long[n];
        long[] reset = new long[n];
        long[] over = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            over[i] = l.limit();
            if (verdict.allowed) {
                Exact.QR next = addCells(permits, a[i], f[i], l);
                a[i] = next.q();
                f[i] = next.r();
            }
            // floor(B - (tau - at) / T) = B - ceil(((a - at) * L + f) / W); below 0 while callers wait.
            Exact.QR used = Exact.mulDivMod(l.limit(), a[i] - at, l.windowMicros());
            remaining[i] = l.burst() - used.q() - Exact.ceilDiv(used.r() + f[i], l.windowMicros());
            reset[i] = a[i] - at + Exact.ceilDiv(f[i], l.limit());
        }
        Decision decision = verdict.decision(config, remaining, reset);
        if (!verdict.allowed) {
            return Step.unchanged(decision);
        }
        return new Step<>(decision, new State(a, f, over, at), true, Verdict.ttl(reset));
    }

    @Override
    public Step<State> refund(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long at = Math.max(now, (state != null) ? state.last() : now);
        long[] a = new long[n];
        long[] f = new long[n];
        long[] over = new long[n];
        long[] remaining = new long[n];
        long[] reset = new long[n];
        boolean changed = false;
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            over[i] = l.limit();
            a[i] = at;
            if (state != null && state.a()[i] >= at) {
                Exact.QR tau = overLimit(state.a()[i], state.f()[i], state.over()[i], l);
                a[i] = tau.q();
                f[i] = tau.r();
            }
            if (a[i] > at || f[i] > 0) {
                changed = true;
                // ceil((tau - at) * L / W) cells lie between at and tau: giving back as many brings tau to
                // at, and fewer keep the product below in range whatever the permits.
                Exact.QR between = Exact.mulDivMod(l.limit(), a[i] - at, l.windowMicros());
                long cells = between.q() + Exact.ceilDiv(between.r() + f[i], l.windowMicros());
                if (permits >= cells) {
                    a[i] = at;
                    f[i] = 0;
                }
                else {
                    Exact.QR back = Exact.mulDivMod(permits, l.windowMicros(), l.limit());
                    Exact.QR borrow = Exact.divmod(f[i] - back.r(), l.limit());
                    a[i] = a[i] - back.q() + borrow.q();
                    f[i] = borrow.r();
                    if (a[i] < at) {
                        a[i] = at;
                        f[i] = 0;
                    }
                }
            }
            Exact.QR used = Exact.mulDivMod(l.limit(), a[i] - at, l.windowMicros());
            remaining[i] = l.burst() - used.q() - Exact.ceilDiv(used.r() + f[i], l.windowMicros());
            reset[i] = a[i] - at + Exact.ceilDiv(f[i], l.limit());
        }
        return Step.refunded(Verdict.REFUND.decision(config, remaining, reset), changed, new State(a, f, over, at), reset);
    }
}
