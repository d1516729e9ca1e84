package dev.limiter;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * A named rate limiter: decides, per key, whether a request may take its permits now.
 * Implementations are thread-safe.
 */
public interface RateLimiter {

    /** Name of the limiter, as used in configuration ({@code limiter.limiters.<name>}) and in keys. */
    String name();

    /** What the limiter decides by: algorithm, limits and options. */
    RateLimiterConfig config();

    /** The deciding algorithm. */
    default Algorithm algorithm() {
        return config().algorithm();
    }

    /** The limits checked together, sorted by window. */
    default List<LimitSpec> limits() {
        return config().limits();
    }

    /**
     * Tries to take {@code permits} permits for {@code key} from every limit: all of them or none.
     *
     * @param key the subject limited, such as a user id; "" limits everyone together
     * @param permits permits asked for, at least 1
     * @return the decision; a rejected request has taken nothing
     */
    Decision tryAcquire(String key, long permits);

    /**
     * How the quota of {@code key} stands now, without taking a permit or changing anything: for
     * dashboards and the actuator endpoint, not for deciding (a decision must take its permits in
     * the same step that checks them).
     *
     * @param key the subject limited
     */
    Quota quota(String key);

    /**
     * Makes {@code key} start idle again, as if it had never been limited: an operator's action (a
     * customer wrongly locked out, a test account), not part of deciding. Only this limiter's state of
     * this key is cleared; other keys and limiters are untouched. Limiters whose state is shared (Redis)
     * clear it for every instance at once, and never pretend: when the state cannot be reached, the key
     * is not reset and this method throws.
     *
     * @param key the subject limited
     * @return whether the key had state to clear; false when it was idle already
     * @throws ResetFailedException when the state could not be cleared, such as while Redis is unavailable
     * @throws UnsupportedOperationException by a limiter that cannot reset keys; every limiter Limiter
     *     creates can
     */
    default boolean reset(String key) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot reset keys");
    }

    /**
     * Gives {@code permits} back to {@code key}, as if that many of the permits it took had not been
     * taken: for a call that took its permits but failed before doing the work they pay for. Every
     * limit of the key gets them back, never beyond whole: a fixed or sliding window counts fewer
     * permits (the newest first), a sliding log drops its newest entries, a token bucket gets tokens
     * back up to its burst, a leaky bucket's level is lowered down to empty, and GCRA's theoretical
     * arrival time moves back, never before now. A key with nothing to give back (idle, or whole again
     * by now) is left as it is. Limiters whose state is shared (Redis) refund for every instance at
     * once, and never pretend: when the state cannot be reached, nothing is given back and this method
     * throws.
     *
     * @param key the subject limited
     * @param permits permits to give back, at least 1; more than the key took gives back what it took
     * @return the key's quota after the refund
     * @throws IllegalArgumentException for fewer than 1 permit
     * @throws RefundFailedException when the state could not be reached, such as while Redis is unavailable
     * @throws UnsupportedOperationException by a limiter that cannot give permits back; every limiter
     *     Limiter creates can
     */
    default Quota refund(String key, long permits) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot give permits back");
    }

    /**
     * Settles a call whose cost is known only after it ran (tokens of an LLM answer, bytes, rows): the call
     * reserved {@code reserved} permits, its estimate, when it was admitted, and cost {@code actual}. The
     * difference is given back or charged to every limit of the key. Less than reserved gives the rest back
     * as {@link #refund} does, never beyond whole. More than reserved takes the rest whatever the limits
     * say, as a caller that waits for its permits takes them: beyond the limit the key is in debt, and
     * later calls wait (up to max-wait) or are rejected until time has paid it off. How debt behaves per
     * algorithm is in docs/settled-costs.md: a fixed window's ends with the window, a sliding window's or
     * log's when the charged permits leave it, a token bucket's tokens go below zero and refill, a leaky
     * bucket's level above its burst and drains, GCRA's theoretical arrival time beyond the burst
     * tolerance. Limiters whose state is shared (Redis) settle for every instance at once in one round
     * trip, and never pretend: when the state cannot be reached, nothing is settled and this method throws.
     *
     * @param key the subject limited
     * @param reserved the permits the call took when it was admitted, at least 1
     * @param actual what the call cost, 0 or more
     * @return the key's quota after the settlement; null when {@code actual} equals {@code reserved},
     *     which changes nothing and asks no one
     * @throws IllegalArgumentException for fewer than 1 permit reserved, a negative actual cost, or a
     *     charge above 1000 times the smallest capacity of the limits (estimate closer)
     * @throws SettleFailedException when the state could not be reached, such as while Redis is unavailable
     * @throws UnsupportedOperationException by a limiter that cannot settle costs; every limiter Limiter
     *     creates can
     */
    default @Nullable Quota settle(String key, long reserved, long actual) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot settle costs");
    }

    /**
     * Settles as {@link #settle(String, long, long)} does, without blocking the calling thread for Redis:
     * for a call whose answer arrives on an event loop (a {@code Mono}, a {@code CompletionStage}). The
     * stage completes with the key's quota after the settlement (null when {@code actual} equals
     * {@code reserved}), or exceptionally with {@link SettleFailedException} when the state could not be
     * reached; a settlement that timed out may have been applied, and is never sent again. The default
     * settles at once, which is right for limiters that need no network.
     *
     * @param key the subject limited
     * @param reserved the permits the call took when it was admitted, at least 1
     * @param actual what the call cost, 0 or more
     * @return the settlement to come
     * @throws IllegalArgumentException at once, for a bad key, fewer than 1 permit reserved, a negative
     *     actual cost, or a charge above 1000 times the smallest capacity of the limits
     * @throws UnsupportedOperationException at once, by a limiter that cannot settle costs
     */
    default CompletionStage<@Nullable Quota> settleAsync(String key, long reserved, long actual) {
        try {
            return CompletableFuture.completedFuture(settle(key, reserved, actual));
        }
        catch (SettleFailedException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Makes this limiter decide by {@code config} from now on: every caller holding it, or a view of it
     * ({@link #reportingRejectionsAs(Outcome)}), decides the next call by the new configuration. Calls
     * being decided finish by the old one. What becomes of each key's state follows
     * {@link RateLimiterConfig#keepsStateOf}: with {@link RetunePolicy#KEEP} keys continue from their
     * state as long as its shape stays, otherwise they start fresh. Every instance decides alike, so
     * instances sharing Redis agree on keys without asking each other.
     *
     * @param config the new configuration, validated as any
     * @return what changed, and what became of the keys' state
     * @throws UnsupportedOperationException by a limiter that cannot be retuned; every limiter Limiter
     *     creates can
     */
    default Retuning retune(RateLimiterConfig config) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be retuned");
    }

    /**
     * This limiter as seen by a caller that does something else than fail with what it rejects: it
     * decides alike, on the same state, but its {@link DecisionListener}s hear its rejections with
     * {@code outcome}, such as {@link Outcome#FALLBACK} when a fallback answers instead, or
     * {@link Outcome#SHADOW_REJECTED} when the call proceeds all the same (shadow mode). So each call is
     * counted once, with what became of it. The default returns this limiter.
     *
     * @param outcome what becomes of a rejected call: {@link Outcome#REJECTED},
     *     {@link Outcome#FALLBACK} or {@link Outcome#SHADOW_REJECTED}
     */
    default RateLimiter reportingRejectionsAs(Outcome outcome) {
        return this;
    }

    /** Tries to take one permit for {@code key}. */
    default Decision tryAcquire(String key) {
        return tryAcquire(key, 1);
    }

    /**
     * Tries to take {@code permits} permits for {@code key} without blocking the calling thread for
     * Redis, as {@link #tryAcquire(String, long)} decides. The stage completes with the decision,
     * never exceptionally because Redis fails: then the failure policy decides. The default decides
     * at once, which is right for limiters that need no network.
     *
     * @param key the subject limited, such as a user id; "" limits everyone together
     * @param permits permits asked for, at least 1
     * @return the decision to come; a rejected request has taken nothing
     * @throws IllegalArgumentException at once, for a bad key or number of permits
     */
    default CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
        return CompletableFuture.completedFuture(tryAcquire(key, permits));
    }

    /** Tries to take one permit for {@code key} without blocking; see {@link #tryAcquireAsync(String, long)}. */
    default CompletionStage<Decision> tryAcquireAsync(String key) {
        return tryAcquireAsync(key, 1);
    }
}
