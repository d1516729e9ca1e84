package dev.limiter.spring.internal.interceptor;

import dev.limiter.Outcome;
import dev.limiter.RateLimiter;
import dev.limiter.spring.internal.RateLimitHeaderFields;

import org.jspecify.annotations.Nullable;

/**
 * What one call is decided by: its limiter's limits, those of its plan, or none (an unlimited plan or
 * key). Prepared once per limiter and plan.
 */
public final class AppliedLimit {

    private final @Nullable String plan;

    /** The limiter deciding, reporting its rejections as what becomes of them; null when unlimited. */
    private final @Nullable RateLimiter deciding;

    /** The limiter deciding, as the registry holds it; null when unlimited. */
    private final @Nullable RateLimiter limiter;

    /** Made again when the limiter is retuned; null when unlimited. */
    private volatile @Nullable RateLimitHeaderFields headerFields;

    private AppliedLimit(@Nullable String plan, @Nullable RateLimiter limiter, Outcome rejectedAs) {
        this.plan = plan;
        this.deciding = (limiter != null) ? limiter.reportingRejectionsAs(rejectedAs) : null;
        this.limiter = limiter;
        this.headerFields = (limiter != null) ? RateLimitHeaderFields.of(limiter) : null;
    }

    /**
     * The limits of {@code limiter}.
     *
     * @param plan the plan {@code limiter} decides for; null for a limiter without plans
     * @param rejectedAs what becomes of a rejected call: rejected, shadow-rejected or answered by a fallback
     */
    static AppliedLimit of(@Nullable String plan, RateLimiter limiter, Outcome rejectedAs) {
        return new AppliedLimit(plan, limiter, rejectedAs);
    }

    /**
     * No limit at all.
     *
     * @param plan the unlimited plan; null for an unlimited key
     */
    static AppliedLimit unlimited(@Nullable String plan) {
        return new AppliedLimit(plan, null, Outcome.REJECTED);
    }

    /** The plan, or null for a limiter without plans and for unlimited keys. */
    public @Nullable String plan() {
        return plan;
    }

    /** The limiter deciding, reporting its rejections as what becomes of them (so its event counts the call); null when unlimited. */
    public @Nullable RateLimiter deciding() {
        return deciding;
    }

    /** The limiter deciding, as the registry holds it; null when unlimited. */
    public @Nullable RateLimiter limiter() {
        return limiter;
    }

    /** The RateLimit header fields of the limits, as the limiter is tuned now; null when unlimited, which announces none. */
    public @Nullable RateLimitHeaderFields headerFields() {
        if (limiter == null) {
            return null;
        }
        RateLimitHeaderFields known = headerFields;
        RateLimitHeaderFields fields = RateLimitHeaderFields.current(known, limiter);
        if (fields != known) {
            headerFields = fields;
        }
        return fields;
    }
}
