package dev.limiter;

import java.time.Duration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

/**
 * Rejections Redis gave, remembered in this process until their retry-after: a flood on a key that
 * is over its limit then costs Redis about one call per retry-after period per instance instead of
 * one per request. Bounded; shared by every limiter of one factory, keyed by the Redis key (which
 * names the limiter and its configuration).
 * <p>
 * A rejection of {@code p} permits also answers later requests of {@code p} or more permits for
 * that key until it expires: they need at least as long. Requests of fewer permits still ask Redis.
 * The retry-after is counted from when the reply arrived here, a round trip's latency later than
 * Redis decided, so the cache never admits early; at worst it rejects for that much longer.
 * <p>
 * When a rejection is over, one caller asks Redis again and the others are rejected until its
 * answer (at most one more retry-after period): threads flooding a key together would otherwise all
 * ask Redis at the same moment, once per period each.
 */
final class LocalDenyCache {

    /** Default bound on the number of keys remembered. */
    static final int DEFAULT_MAX_KEYS = 10_000;

    private final LimiterClock clock;

    private final Cache<String, Denial> denials;

    /**
     * @param maxKeys most keys remembered at once; the least recently used are forgotten first
     * @param clock the time source, in microseconds; monotonic time when null
     */
    LocalDenyCache(int maxKeys, LimiterClock clock) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("the local deny cache must hold at least 1 key but maxKeys was " + maxKeys);
        }
        this.clock = (clock != null) ? clock : () -> System.nanoTime() / 1_000L;
        this.denials = Caffeine.newBuilder()
            .maximumSize(maxKeys)
            .ticker(() -> this.clock.nowMicros() * 1_000L)
            .expireAfter(new UntilRetry())
            .build();
    }

    /** A remembered rejection: the decision, the permits it was for, and when it arrived and ends (us). */
    private record Denial(Decision decision, long permits, long atMicros, long untilMicros) {

        /** The retry-after Redis gave: how long the rejection lasts, and how long a claim on it does. */
        long periodMicros() {
            return Math.max(1, decision.retryAfter().toNanos() / 1_000L);
        }
    }

    /**
     * The remembered rejection that also answers {@code permits} permits for {@code redisKey} now,
     * with its times counted down; null when Redis must decide.
     */
    Decision rejection(String redisKey, long permits) {
        Denial denial = denials.getIfPresent(redisKey);
        if (denial == null || permits < denial.permits()) {
            return null;
        }
        long now = clock.nowMicros();
        if (denial.untilMicros() <= now) {
            // Over: the first caller to see it so asks Redis; callers meanwhile are rejected for one more period
            // (its answer replaces the claim), so many threads flooding a key cost Redis one call per period, not
            // one call each whenever a period ends. A caller never passes early: at worst it waits that long.
            Denial claim = new Denial(denial.decision(), denial.permits(), denial.atMicros(), now + denial.periodMicros());
            if (denials.asMap().replace(redisKey, denial, claim)) {
                return null;
            }
            denial = denials.getIfPresent(redisKey);
            if (denial == null || permits < denial.permits() || denial.untilMicros() <= now) {
                return null;
            }
        }
        long left = denial.untilMicros() - now;
        Decision decision = denial.decision();
        Duration elapsed = Duration.ofNanos(Math.max(0, now - denial.atMicros()) * 1_000L);
        Duration reset = decision.resetAfter().minus(elapsed);
        return new Decision(false, decision.limit(), decision.remaining(), reset.isNegative() ? Duration.ZERO : reset,
                Duration.ofNanos(left * 1_000L), Duration.ZERO, decision.violatedLimit(), DecisionSource.LOCAL_DENY_CACHE);
    }

    /**
     * Learns from a decision Redis just gave: remembers a rejection, unless it can never pass or may pass
     * at once; after an admission that left permits, drops the claim of a rejection that was over (see
     * rejection), so the callers it held back ask Redis again instead of waiting out one more period.
     */
    void remember(String redisKey, long permits, Decision decision) {
        if (decision.allowed()) {
            if (decision.remaining() > 0) {
                denials.asMap().remove(redisKey);
            }
            return;
        }
        if (decision.neverAllowed() || decision.retryAfter().isZero()) {
            return;
        }
        long now = clock.nowMicros();
        long until = now + decision.retryAfter().toNanos() / 1_000L;
        denials.asMap().merge(redisKey, new Denial(decision, permits, now, until),
                // Keep the rejection that answers more requests: the one for fewer permits.
                (old, fresh) -> (old.untilMicros() > now && old.permits() < fresh.permits()) ? old : fresh);
    }

    /** Number of keys remembered, after expired ones are dropped. For tests. */
    long size() {
        denials.cleanUp();
        return denials.estimatedSize();
    }

    private static final class UntilRetry implements Expiry<String, Denial> {

        // Kept one period past its end, so that a caller can claim it when it is over (see rejection).
        @Override
        public long expireAfterCreate(String key, Denial denial, long currentTime) {
            return (denial.untilMicros() + denial.periodMicros()) * 1_000L - currentTime;
        }

        @Override
        public long expireAfterUpdate(String key, Denial denial, long currentTime, long currentDuration) {
            return (denial.untilMicros() + denial.periodMicros()) * 1_000L - currentTime;
        }

        @Override
        public long expireAfterRead(String key, Denial denial, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
