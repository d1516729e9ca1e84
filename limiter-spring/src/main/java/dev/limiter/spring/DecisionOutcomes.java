package dev.limiter.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.limiter.Decision;
import dev.limiter.RateLimiter;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one place that learns the outcome of every limited call, after the decision and before the
 * call proceeds, fails or falls back. Counts it (metrics), logs shadow rejections (at DEBUG only,
 * since the message names the user's key) and, within a servlet request or a WebFlux exchange, sets
 * the RateLimit header fields of calls that proceed or fall back (the 429 handler sets those of
 * rejections).
 */
class DecisionOutcomes {

    private static final Log logger = LogFactory.getLog(DecisionOutcomes.class);

    private final boolean headers;

    private final DecisionRecorder recorder;

    /**
     * @param headers whether to set the RateLimit header fields on the response of the request
     *     being handled (limiter.headers.enabled)
     * @param recorder what observes decisions and counts outcomes
     */
    DecisionOutcomes(boolean headers, DecisionRecorder recorder) {
        this.headers = headers;
        this.recorder = recorder;
    }

    /**
     * Decides one call by {@code limit}: takes {@code permits} for {@code key}, observed; a call no limit
     * applies to is allowed without asking any limiter.
     */
    Decision decide(CallLimit limit, String key, long permits) {
        RateLimiter deciding = limit.deciding();
        return (deciding != null) ? recorder.decide(deciding, key, permits) : CallLimit.UNLIMITED;
    }

    /** Decides one asynchronous call by {@code limit} without blocking, observed. */
    CompletionStage<Decision> decideAsync(CallLimit limit, String key, long permits) {
        RateLimiter deciding = limit.deciding();
        return (deciding != null) ? recorder.decideAsync(deciding, key, permits) : CompletableFuture.completedFuture(CallLimit.UNLIMITED);
    }

    /**
     * The key, cost and limit of one call of {@code method}; a call whose key, cost or plan cannot be
     * found (an expression fails, an unknown plan) is counted as an error before the exception goes on.
     *
     * @param request the request the call serves, {@link CallRequest#NONE} when the method does not use it
     * @return null when the call is not to be limited
     */
    LimitedMethod.@Nullable Call evaluate(LimitedMethod method, @Nullable Object[] args, @Nullable Object target, CallRequest request) {
        try {
            return method.call(args, target, request);
        }
        catch (RuntimeException ex) {
            recorder.countError(method.countedLimiter());
            throw ex;
        }
    }

    /** Whether responses get the RateLimit header fields. */
    boolean setsHeaderFields() {
        return headers;
    }

    /**
     * The response of the servlet request this thread handles, for a call whose decision comes later
     * on another thread; {@link RateLimitResponse#NONE} when there is none or no fields are set.
     */
    RateLimitResponse responseOfThisCall() {
        return (headers && CallRequests.SERVLET_PRESENT) ? CurrentServletResponse.capture() : RateLimitResponse.NONE;
    }

    /**
     * Records the consequence of one call's decision.
     *
     * @param method the limited method called
     * @param limit the limit that decided the call
     * @param key the key the call was limited under
     * @param response where the RateLimit header fields go; null for the servlet response of the
     *     request this thread handles, if any
     */
    void record(LimitedMethod method, CallLimit limit, String key, Consequence consequence, RateLimitResponse response) {
        Decision decision = consequence.decision();
        Outcome outcome = consequence.outcome();
        recorder.count(method.countedLimiter(), decision, outcome);
        if (outcome == Outcome.SHADOW_REJECTED && logger.isDebugEnabled()) {
            logger.debug("Shadow mode: limiter '" + method.name() + "'" + ((limit.plan() != null) ? " (plan '" + limit.plan() + "')" : "")
                    + " would have rejected key '" + key + "' at "
                    + method.site() + " (limit " + decision.limit() + ", remaining " + decision.remaining() + ", violated "
                    + decision.violatedLimit() + ", retry after " + decision.retryAfter().toMillis() + " ms); the call proceeds");
        }
        // A shadow limiter enforces nothing, so it announces nothing clients could act on; nor does no limit.
        RateLimitHeaderFields fields = limit.headerFields();
        if (headers && (outcome == Outcome.ALLOWED || outcome == Outcome.FALLBACK) && !method.shadow() && fields != null) {
            if (response != null) {
                response.setHeaderFields(fields.policy(), fields.rateLimit(decision));
            }
            else if (CallRequests.SERVLET_PRESENT) {
                CurrentServletResponse.setHeaders(fields.policy(), fields.rateLimit(decision));
            }
        }
    }
}
