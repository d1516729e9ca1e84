package dev.limiter.spring;

import java.util.concurrent.CompletionStage;

import dev.limiter.Decision;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;

/**
 * A registry's limiter as application code calls it directly: each decision is observed and counted
 * as allowed or rejected. {@code @RateLimited} calls decide on the limiter inside ({@link #unwrap}),
 * since the interceptor counts what finally became of them (shadow, fallback).
 */
final class MeteredRateLimiter implements RateLimiter {

    private final RateLimiter limiter;

    private final DecisionRecorder recorder;

    MeteredRateLimiter(RateLimiter limiter, DecisionRecorder recorder) {
        this.limiter = limiter;
        this.recorder = recorder;
    }

    /** The limiter that decides: the one inside a metered limiter, else {@code limiter} itself. */
    static RateLimiter unwrap(RateLimiter limiter) {
        return (limiter instanceof MeteredRateLimiter metered) ? metered.limiter : limiter;
    }

    @Override
    public String name() {
        return limiter.name();
    }

    @Override
    public RateLimiterConfig config() {
        return limiter.config();
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
        Decision decision = recorder.decide(limiter, key, permits);
        recorder.count(limiter, decision, decision.allowed() ? Outcome.ALLOWED : Outcome.REJECTED);
        return decision;
    }

    @Override
    public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
        return recorder.decideAsync(limiter, key, permits).thenApply((decision) -> {
            recorder.count(limiter, decision, decision.allowed() ? Outcome.ALLOWED : Outcome.REJECTED);
            return decision;
        });
    }

    @Override
    public Quota quota(String key) {
        return limiter.quota(key);
    }

    @Override
    public boolean reset(String key) {
        return limiter.reset(key);
    }

    @Override
    public String toString() {
        return limiter.toString();
    }
}
