package dev.limiter.redis;

import java.time.Duration;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimiterClock;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import org.jspecify.annotations.Nullable;

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
 * When a rejection is over, one caller claims it and asks Redis again; the others are rejected until
 * its answer arrives, however long the round trip: threads flooding a key together would otherwise
 * all ask Redis at the same moment, once per period each, and a period shorter than a round trip
 * would let several claim in turn. An admission that leaves permits ends the claim at once; one that
 * leaves none, or a call that fails, lets it run to the end of its period (one more retry-after, a
 * second at most);
 * a rejection replaces it. A claim whose answer never comes is given up after {@link #ANSWER_TIMEOUT_MICROS}.
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
    LocalDenyCache(int maxKeys, @Nullable LimiterClock clock) {
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

    /** How long callers wait for a claimant's answer at most, should it never come (its call lost). */
    static final long ANSWER_TIMEOUT_MICROS = 1_000_000;

    /** How long a claim holds callers back at most once its answer is in (or lost): then the next caller asks Redis. */
    static final long CLAIM_HOLD_MAX_MICROS = 1_000_000;

    /** How long at least a rejection is kept after it stops holding, for a caller to claim it. */
    private static final long KEPT_AFTER_MICROS = 1_000_000;

    /** Retry-after told to callers held back while a claimant's answer is late: ask again shortly. */
    private static final long LATE_ANSWER_RETRY_MICROS = 1_000;

    /**
     * A remembered rejection: the decision, the permits it was for, when it arrived and ends (us); when
     * claimed, whether the claimant's answer is awaited and until when at most.
     */
    private record Denial(Decision decision, long permits, long atMicros, long untilMicros, boolean awaitingAnswer,
            long answerDueMicros) {

        Denial(Decision decision, long permits, long atMicros, long untilMicros) {
            this(decision, permits, atMicros, untilMicros, false, untilMicros);
        }

        /** The retry-after Redis gave: how long the rejection lasts, and how long a claim on it does. */
        long periodMicros() {
            return Math.max(1, decision.retryAfter().toNanos() / 1_000L);
        }

        /** Whether it answers callers at {@code now}: until its end, or while a claimant's answer is awaited. */
        boolean holds(long now) {
            return untilMicros > now || (awaitingAnswer && answerDueMicros > now);
        }

        /**
         * Claimed at {@code now}: one more period, at most {@link #CLAIM_HOLD_MAX_MICROS}, and callers wait for
         * the claimant's answer. The period says when the old rejection ended, not when the next permit comes:
         * a month's window rejected for 30 days must not keep the key rejected here for 30 more when the
         * claimant's call fails or takes the last permit of the new window.
         */
        Denial claimed(long now) {
            long until = now + Math.min(periodMicros(), CLAIM_HOLD_MAX_MICROS);
            return new Denial(decision, permits, atMicros, until, true, Math.max(until, now + ANSWER_TIMEOUT_MICROS));
        }

        /** No longer waiting for an answer: holds to the end of its period. */
        Denial settled() {
            return awaitingAnswer ? new Denial(decision, permits, atMicros, untilMicros) : this;
        }

        /**
         * When the cache may drop it: a period after it stops holding, and at least {@link #KEPT_AFTER_MICROS},
         * so that a flood still going claims it. Dropped, every flooding caller would ask Redis at once.
         */
        long keptUntilMicros() {
            return Math.max(untilMicros, answerDueMicros) + Math.max(periodMicros(), KEPT_AFTER_MICROS);
        }
    }

    /**
     * The remembered rejection that also answers {@code permits} permits for {@code redisKey} now,
     * with its times counted down; null when Redis must decide.
     */
    @Nullable Decision rejection(String redisKey, long permits) {
        Denial denial = denials.getIfPresent(redisKey);
        if (denial == null || permits < denial.permits()) {
            return null;
        }
        long now = clock.nowMicros();
        if (!denial.holds(now)) {
            // Over: the first caller to see it so claims it and asks Redis (see the class comment). A caller
            // never passes early: at worst it waits for the claimant's answer.
            if (denials.asMap().replace(redisKey, denial, denial.claimed(now))) {
                return null;
            }
            denial = denials.getIfPresent(redisKey);
            if (denial == null || permits < denial.permits() || !denial.holds(now)) {
                return null;
            }
        }
        // A claimant's answer later than the period: the caller may ask again shortly.
        long left = Math.max(denial.untilMicros() - now, LATE_ANSWER_RETRY_MICROS);
        Decision decision = denial.decision();
        Duration elapsed = Duration.ofNanos(Math.max(0, now - denial.atMicros()) * 1_000L);
        return new Decision(false, decision.limit(), decision.remaining(), countDown(decision.resetAfter(), elapsed),
                countDown(decision.limitResetAfter(), elapsed), Duration.ofNanos(left * 1_000L), Duration.ZERO, decision.violatedLimit(),
                DecisionSource.LOCAL_DENY_CACHE);
    }

    /** What is left of {@code time} once {@code elapsed} has passed, never below zero. */
    private static Duration countDown(Duration time, Duration elapsed) {
        Duration left = time.minus(elapsed);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * Learns from a decision Redis just gave: remembers a rejection, unless it can never pass or may pass
     * at once. An admission that left permits drops the key's claim, so the callers it held back ask
     * Redis again instead of waiting out one more period; one that left none ends the wait for an answer.
     */
    void remember(String redisKey, long permits, Decision decision) {
        if (decision.allowed()) {
            if (decision.remaining() > 0) {
                denials.asMap().remove(redisKey);
            }
            else {
                settle(redisKey);
            }
            return;
        }
        if (decision.neverAllowed() || decision.retryAfter().isZero()) {
            settle(redisKey);
            return;
        }
        long now = clock.nowMicros();
        long until = now + decision.retryAfter().toNanos() / 1_000L;
        denials.asMap().merge(redisKey, new Denial(decision, permits, now, until),
                // Keep the rejection that answers more requests: the one for fewer permits.
                (old, fresh) -> (old.untilMicros() > now && old.permits() < fresh.permits()) ? old : fresh);
    }

    /**
     * Ends the wait for the answer to a claim on {@code redisKey}, when no answer is coming (Redis failed)
     * or it says nothing of the next permit: the claim holds to the end of its period.
     */
    void settle(String redisKey) {
        Denial denial = denials.getIfPresent(redisKey);
        if (denial != null && denial.awaitingAnswer()) {
            denials.asMap().replace(redisKey, denial, denial.settled());
        }
    }

    /** Forgets any rejection remembered for {@code redisKey}, whose state was just reset. */
    void forget(String redisKey) {
        denials.invalidate(redisKey);
    }

    /**
     * Forgets every rejection remembered for keys starting with {@code keyHead}: those of one limiter,
     * retuned, whose old limits they were decided by.
     */
    void forgetAll(String keyHead) {
        denials.asMap().keySet().removeIf((redisKey) -> redisKey.startsWith(keyHead));
    }

    /** Number of keys remembered, after expired ones are dropped. For tests. */
    long size() {
        denials.cleanUp();
        return denials.estimatedSize();
    }

    private static final class UntilRetry implements Expiry<String, Denial> {

        // Kept past its end (Denial.keptUntilMicros), so that a caller can claim it when it is over (see rejection).
        @Override
        public long expireAfterCreate(String key, Denial denial, long currentTime) {
            return denial.keptUntilMicros() * 1_000L - currentTime;
        }

        @Override
        public long expireAfterUpdate(String key, Denial denial, long currentTime, long currentDuration) {
            return denial.keptUntilMicros() * 1_000L - currentTime;
        }

        @Override
        public long expireAfterRead(String key, Denial denial, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
