package dev.limiter.spring;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.limiter.Decision;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one place that learns the outcome of every limited call (of a {@code @RateLimited} method or
 * under a rule of {@code limiter.rules}), after the decision and before the call proceeds, fails or
 * falls back. Counts it (metrics), logs shadow rejections (at DEBUG only, since the message names the
 * user's key) and, within a servlet request or a WebFlux exchange, sets the RateLimit header fields
 * of calls that proceed or fall back (the 429 handler sets those of rejections).
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

    /** Decides one call of {@code limited}: takes {@code permits} for {@code key}, observed. */
    Decision decide(Limited limited, String key, long permits) {
        return recorder.decide(limited.decidingLimiter(), key, permits);
    }

    /** Decides one asynchronous call of {@code limited} without blocking, observed. */
    CompletionStage<Decision> decideAsync(Limited limited, String key, long permits) {
        return recorder.decideAsync(limited.decidingLimiter(), key, permits);
    }

    /**
     * The key and cost of one call of {@code method}; a call whose key or cost expression fails is
     * counted as an error before the exception goes on.
     *
     * @param request the request the call serves, {@link CallRequest#NONE} when the method does not use it
     * @return null when the call is not to be limited
     */
    LimitedMethod.@Nullable Call evaluate(LimitedMethod method, @Nullable Object[] args, @Nullable Object target, CallRequest request) {
        return evaluate(method, () -> method.call(args, target, request));
    }

    /**
     * What {@code evaluation} of a call's expressions gives; one that fails is counted as an error of
     * {@code limited} before the exception goes on.
     */
    <T> @Nullable T evaluate(Limited limited, Supplier<@Nullable T> evaluation) {
        try {
            return evaluation.get();
        }
        catch (RuntimeException ex) {
            recorder.countError(limited.decidingLimiter());
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
     * @param method the limited method called, or the rule applied
     * @param key the key the call was limited under
     * @param response where the RateLimit header fields go; null for the servlet response of the
     *     request this thread handles, if any
     */
    void record(Limited method, String key, Consequence consequence, RateLimitResponse response) {
        Decision decision = consequence.decision();
        Outcome outcome = consequence.outcome();
        recorder.count(method.decidingLimiter(), decision, outcome);
        if (outcome == Outcome.SHADOW_REJECTED && logger.isDebugEnabled()) {
            logger.debug("Shadow mode: limiter '" + method.limiter().name() + "' would have rejected key '" + key + "' at "
                    + method.site() + " (limit " + decision.limit() + ", remaining " + decision.remaining() + ", violated "
                    + decision.violatedLimit() + ", retry after " + decision.retryAfter().toMillis() + " ms); the call proceeds");
        }
        // A shadow limiter enforces nothing, so it announces nothing clients could act on.
        if (headers && (outcome == Outcome.ALLOWED || outcome == Outcome.FALLBACK) && !method.shadow()) {
            RateLimitHeaderFields fields = method.headerFields();
            if (response != null) {
                response.setHeaderFields(fields.policy(), fields.rateLimit(decision));
            }
            else if (CallRequests.SERVLET_PRESENT) {
                CurrentServletResponse.setHeaders(fields.policy(), fields.rateLimit(decision));
            }
        }
    }
}
