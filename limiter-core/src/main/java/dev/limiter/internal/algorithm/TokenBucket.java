package dev.limiter.internal.algorithm;

import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/** In-memory twin of {@code token-bucket.lua}; see docs/algorithms.md. */
final class TokenBucket implements LocalAlgorithm<TokenBucket.State> {

    static final TokenBucket INSTANCE = new TokenBucket();

    /**
     * Per limit: whole tokens {@code x} and the fraction {@code f} over the window, so the bucket
     * holds x + f/W tokens; {@code last}: time of the last change.
     */
    record State(long[] x, long[] f, long last) {
    }

    /** ceil(((k - x) * W - f) / L): microseconds until the bucket holds k tokens (0 if it does). */
    static long timeTo(long k, long x, long f, LimitSpec l) {
        if (x >= k) {
            return 0;
        }
        Exact.QR qr = Exact.mulDivMod(k - x, l.windowMicros(), l.limit());
        return qr.q() + Exact.ceilDiv(qr.r() - f, l.limit());
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
        long[] x = new long[n];
        long[] f = new long[n];
        long[] retry = new long[n];
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            if (state == null || elapsed >= timeTo(l.burst(), state.x()[i], state.f()[i], l)) {
                x[i] = l.burst();
                f[i] = 0;
            }
            else {
                // Refill elapsed * L / W tokens, exactly.
                Exact.QR added = Exact.mulDivMod(l.limit(), elapsed, l.windowMicros());
                Exact.QR carry = Exact.divmod(state.f()[i] + added.r(), l.windowMicros());
                f[i] = carry.r();
                x[i] = state.x()[i] + added.q() + carry.q();
            }
            // A cost above the burst is never admitted (decide says so): no retry to compute, and
            // mulDivMod stays inside its range.
            retry[i] = (permits <= l.burst()) ? timeTo(permits, x[i], f[i], l) : 0;
        }
        Verdict verdict = Verdict.decide(config, permits, retry, maxWait);
        // What is left of each bucket is what it reports as remaining; retry, read by now, holds the resets.
        long[] remaining = x;
        long[] reset = retry;
        for (int i = 0; i < n; i++) {
            if (verdict.allowed) {
                x[i] -= permits;
            }
            reset[i] = timeTo(limits.get(i).burst(), x[i], f[i], limits.get(i));
        }
        Decision decision = verdict.decision(config, remaining, reset);
        if (!verdict.allowed) {
            return Step.unchanged(decision);
        }
        return new Step<>(decision, new State(x, f, Math.max(now, last)), true, Verdict.ttl(reset));
    }

    @Override
    public Step<State> refund(@Nullable State state, RateLimiterConfig config, long now, long permits) {
        List<LimitSpec> limits = config.limits();
        int n = limits.size();
        long last = (state != null) ? state.last() : now;
        long elapsed = Math.max(0, now - last);
        long[] x = new long[n];
        long[] f = new long[n];
        long[] remaining = new long[n];
        long[] reset = new long[n];
        boolean changed = false;
        for (int i = 0; i < n; i++) {
            LimitSpec l = limits.get(i);
            if (state == null || elapsed >= timeTo(l.burst(), state.x()[i], state.f()[i], l)) {
                x[i] = l.burst();
                f[i] = 0;
            }
            else {
                // Refilled to now exactly as a decision refills it, then the tokens given back, up to B.
                Exact.QR added = Exact.mulDivMod(l.limit(), elapsed, l.windowMicros());
                Exact.QR carry = Exact.divmod(state.f()[i] + added.r(), l.windowMicros());
                f[i] = carry.r();
                x[i] = state.x()[i] + added.q() + carry.q();
                changed = true;
                if (permits >= l.burst() - x[i]) {
                    x[i] = l.burst();
                    f[i] = 0;
                }
                else {
                    x[i] += permits;
                }
            }
            remaining[i] = x[i];
            reset[i] = timeTo(l.burst(), x[i], f[i], l);
        }
        return Step.refunded(Verdict.REFUND.decision(config, remaining, reset), changed, new State(x, f, Math.max(now, last)), reset);
    }
}
