package dev.limiter.spring.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.Outcome;
import dev.limiter.RateLimiter;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one place that learns the outcome of every limited call (of a {@code @RateLimited} method or
 * under a rule of {@code limiter.rules}), after the decision and before the call proceeds, fails or
 * falls back. The limiter's listeners have heard it already (each decides on its limiter
 * {@linkplain dev.limiter.RateLimiter#reportingRejectionsAs reporting rejections} as what becomes of
 * them); this logs shadow rejections (at DEBUG only, since the message names the user's key) and,
 * within a servlet request or a WebFlux exchange, sets the RateLimit header fields of calls that
 * proceed or fall back (the 429 handler sets those of rejections).
 */
public class DecisionOutcomes {

    /**
     * The decision of a call that no limit applies to (an unlimited key or plan): allowed, made by nothing
     * and stored nowhere. It reports no limit (0) and nothing remaining, so it never counts as near the limit.
     */
    public static final Decision UNLIMITED = new Decision(true, 0, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, null,
            DecisionSource.UNLIMITED);

    private static final Log logger = LogFactory.getLog(DecisionOutcomes.class);

    private final boolean headers;

    /** Hears calls that could not be decided. */
    private final DecisionListener listener;

    /**
     * @param headers whether to set the RateLimit header fields on the response of the request
     *     being handled (limiter.headers.enabled)
     * @param listener what hears calls that could not be decided
     */
    public DecisionOutcomes(boolean headers, DecisionListener listener) {
        this.headers = headers;
        this.listener = listener;
    }

    /**
     * Decides one call of {@code limited}: takes {@code permits} for {@code key} from {@code deciding}.
     * A call no limit applies to (an unlimited key or plan) is allowed without asking any limiter, and
     * heard as such under {@code limited}'s limiter.
     *
     * @param deciding the limiter deciding, which reports rejections as what becomes of them; null for no limit
     */
    public Decision decide(EnforcementPoint limited, @Nullable RateLimiter deciding, String key, long permits) {
        return (deciding != null) ? deciding.tryAcquire(key, permits) : unlimited(limited);
    }

    /** Decides one asynchronous call of {@code limited} without blocking; see {@link #decide}. */
    public CompletionStage<Decision> decideAsync(EnforcementPoint limited, @Nullable RateLimiter deciding, String key, long permits) {
        return (deciding != null) ? deciding.tryAcquireAsync(key, permits) : CompletableFuture.completedFuture(unlimited(limited));
    }

    private Decision unlimited(EnforcementPoint limited) {
        listener.onDecision(DecisionEvent.of(limited.limiter(), UNLIMITED, Outcome.REJECTED, -1));
        return UNLIMITED;
    }

    /**
     * What {@code evaluation} of a call's expressions (its key, cost and plan) gives; one that fails (an
     * expression fails, an unknown plan) is told to the listener as an {@link Outcome#ERROR} of
     * {@code limited} before the exception goes on.
     */
    public <T> @Nullable T evaluate(EnforcementPoint limited, Supplier<@Nullable T> evaluation) {
        try {
            return evaluation.get();
        }
        catch (RuntimeException ex) {
            listener.onDecision(DecisionEvent.failed(limited.limiter(), ex));
            throw ex;
        }
    }

    /** Tells the listener that a call of {@code limited} could not be settled: {@code failure} was logged, never thrown. */
    public void settleFailed(EnforcementPoint limited, RuntimeException failure) {
        try {
            listener.onSettleFailed(limited.limiter(), failure);
        }
        catch (RuntimeException ex) {
            logger.warn("A DecisionListener failed hearing a failed settlement of limiter '" + limited.limiter().name() + "'", ex);
        }
    }

    /** Whether responses get the RateLimit header fields. */
    public boolean setsHeaderFields() {
        return headers;
    }

    /**
     * The response of the servlet request this thread handles, for a call whose decision comes later
     * on another thread; {@link RateLimitResponse#NONE} when there is none or no fields are set.
     */
    public RateLimitResponse responseOfThisCall() {
        return (headers && ServedRequest.SERVLET_PRESENT) ? CurrentServletResponse.capture() : RateLimitResponse.NONE;
    }

    /**
     * Records the consequence of one call's decision.
     *
     * @param limited the limited method called, or the rule applied
     * @param plan the plan that decided the call; null for none
     * @param fields the RateLimit header fields of the limits that decided; null for no limit, which announces none
     * @param key the key the call was limited under
     * @param response where the RateLimit header fields go; null for the servlet response of the
     *     request this thread handles, if any
     */
    public void record(EnforcementPoint limited, @Nullable String plan, @Nullable RateLimitHeaderFields fields, String key, Consequence consequence,
            @Nullable RateLimitResponse response) {
        Decision decision = consequence.decision();
        Outcome outcome = consequence.outcome();
        if (outcome == Outcome.SHADOW_REJECTED && logger.isDebugEnabled()) {
            logger.debug("Shadow mode: limiter '" + limited.limiter().name() + "'" + ((plan != null) ? " (plan '" + plan + "')" : "")
                    + " would have rejected key '" + key + "' at "
                    + limited.site() + " (limit " + decision.limit() + ", remaining " + decision.remaining() + ", violated "
                    + decision.violatedLimit() + ", retry after " + decision.retryAfter().toMillis() + " ms); the call proceeds");
        }
        // A shadow limiter enforces nothing, so it announces nothing clients could act on; nor does no limit.
        if (headers && (outcome == Outcome.ALLOWED || outcome == Outcome.FALLBACK) && !limited.shadow() && fields != null) {
            // The values are built only where they go: NONE (an asynchronous call outside a request) has nowhere to put them.
            if (response == null && ServedRequest.SERVLET_PRESENT) {
                CurrentServletResponse.setHeaders(fields, decision);
            }
            else if (response != null && response != RateLimitResponse.NONE) {
                response.setHeaderFields(fields.policy(), fields.rateLimit(decision));
            }
        }
    }
}
