package dev.limiter.autoconfigure;

import dev.limiter.Decision;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.ClassUtils;

/**
 * The one place that learns the outcome of every limited call, after the decision and before the
 * call proceeds, fails or falls back. Counts it (metrics), logs shadow rejections (at DEBUG only,
 * since the message names the user's key) and, within a servlet request, sets the RateLimit header
 * fields of calls that proceed or fall back (the 429 handler sets those of rejections).
 */
class DecisionOutcomes {

    private static final Log logger = LogFactory.getLog(DecisionOutcomes.class);

    private static final boolean SERVLET_PRESENT = ClassUtils.isPresent("jakarta.servlet.http.HttpServletResponse", null)
            && ClassUtils.isPresent("org.springframework.web.context.request.ServletRequestAttributes", null);

    private final boolean headers;

    private final DecisionRecorder recorder;

    /**
     * @param headers whether to set the RateLimit header fields on the current servlet response
     *     (limiter.headers.enabled)
     * @param recorder what observes decisions and counts outcomes
     */
    DecisionOutcomes(boolean headers, DecisionRecorder recorder) {
        this.headers = headers && SERVLET_PRESENT;
        this.recorder = recorder;
    }

    /** Decides one call of {@code method}: takes {@code permits} for {@code key}, observed. */
    Decision decide(LimitedMethod method, String key, long permits) {
        return recorder.decide(method.decidingLimiter(), key, permits);
    }

    /** Records a call of {@code method} that failed before its limiter could decide. */
    void error(LimitedMethod method) {
        recorder.countError(method.decidingLimiter());
    }

    /**
     * Records the outcome of one call.
     *
     * @param method the limited method called
     * @param key the key the call was limited under
     */
    void record(LimitedMethod method, String key, Decision decision, Outcome outcome) {
        recorder.count(method.decidingLimiter(), decision, outcome);
        if (outcome == Outcome.SHADOW_REJECTED && logger.isDebugEnabled()) {
            logger.debug("Shadow mode: limiter '" + method.limiter().name() + "' would have rejected key '" + key + "' at "
                    + method.site() + " (limit " + decision.limit() + ", remaining " + decision.remaining() + ", violated "
                    + decision.violatedLimit() + ", retry after " + decision.retryAfter().toMillis() + " ms); the call proceeds");
        }
        // A shadow limiter enforces nothing, so it announces nothing clients could act on.
        if (headers && (outcome == Outcome.ALLOWED || outcome == Outcome.FALLBACK) && !method.shadow()) {
            RateLimitHeaderFields fields = method.headerFields();
            CurrentServletResponse.setHeaders(fields.policy(), fields.rateLimit(decision));
        }
    }
}
