package dev.limiter.internal.algorithm;

import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/** In-memory twin of {@code leaky-bucket.lua}; see docs/algorithms.md. */
final class LeakyBucket implements LocalAlgorithm<LeakyBucket.State> {

    static final LeakyBucket INSTANCE = new LeakyBucket();

    /**
     * Per limit: the whole level {@code v} and the fraction {@code f} over the window, so the bucket
     * holds v + f/W permits; {@code last}: time of the last change.
     */
    record State(long[] v, long[] f, long last) {
    }

    /** ceil(((v - k) * W + f) / L): microseconds until the level is down to k (0 if it is). */
    static long timeTo(long k, long v, long f, LimitSpec l) {
        if (v < k) {
            return 0;
        }
        Exact.QR qr = Exact.mulDivMod(v - k, l.windowMicros(), l.limit());
        return qr.q() + Exact.ceilDiv(qr.r() + f, l.limit());
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        return apply(state, config, now, permits, config.maxWaitMicros());
    }

    @Override
    public Step<State> apply(@Nullable State state, RateLimiterConfig config, long now, long permits, long maxWait) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long last = (state != null) ? state.last() : now;
        long elapsed = Math.max(0, now - last);
        long[] v = new long[n];
        long[] f = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            // Comparing with the time to empty first keeps elapsed, and so the product below, bounded.
            if (state == null || elapsed >= timeTo(0, state.v()[i], state.f()[i], l)) {
                v[i] = 0;
                f[i] = 0;
            }
            else {
                // Drain elapsed * L / W permits, exactly; the level stays above 0.
                Exact.QR drained = Exact.mulDivMod(l.limit(), elapsed, l.windowMicros());
                Exact.QR borrow = Exact.divmod(state.f()[i] - drained.r(), l.windowMicros());
                f[i] = borrow.r();
                v[i] = state.v()[i] - drained.q() + borrow.q();
            }
            // A cost above the burst is never admitted (decide says so); its retry is not needed.
            retry[i] = (permits <= l.burst()) ? timeTo(l.burst() - permits, v[i], f[i], l) : 0;
        }
        Verdict verdict = Verdict.decide(config, permits, retry, maxWait);
        long[] remaining = new long[n];
        long[] reset = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            if (verdict.allowed) {
                v[i] += permits;
            }
            // floor(B - v - f/W); below 0 while callers wait.
            remaining[i] = l.burst() - v[i] - (f[i] > 0 ? 1 : 0);
            reset[i] = timeTo(0, v[i], f[i], l);
        }
        Decision decision = verdict.decision(config, remaining, reset);
        if (!verdict.allowed) {
            return Step.unchanged(decision);
        }
        return new Step<>(decision, new State(v, f, Math.max(now, last)), true, Verdict.ttl(reset));
    }

    @Override
    public Step<State> refund(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long last = (state != null) ? state.last() : now;
        long elapsed = Math.max(0, now - last);
        long[] v = new long[n];
        long[] f = new long[n];
        long[] remaining = new long[n];
        long[] reset = new long[n];
        boolean changed = false;
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            if (state != null && elapsed < timeTo(0, state.v()[i], state.f()[i], l)) {
                // Drained to now exactly as a decision drains it, then lowered by the permits, down to empty.
                Exact.QR drained = Exact.mulDivMod(l.limit(), elapsed, l.windowMicros());
                Exact.QR borrow = Exact.divmod(state.f()[i] - drained.r(), l.windowMicros());
                f[i] = borrow.r();
                v[i] = state.v()[i] - drained.q() + borrow.q();
                changed = true;
                if (v[i] < permits) {
                    v[i] = 0;
                    f[i] = 0;
                }
                else {
                    v[i] -= permits;
                }
            }
            remaining[i] = l.burst() - v[i] - (f[i] > 0 ? 1 : 0);
            reset[i] = timeTo(0, v[i], f[i], l);
        }
        return Step.refunded(Verdict.REFUND.decision(config, remaining, reset), changed, new State(v, f, Math.max(now, last)), reset);
    }
}
