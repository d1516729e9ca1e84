package dev.limiter.autoconfigure;

import dev.limiter.Decision;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The one place that learns the outcome of every limited call, after the decision and before the
 * call proceeds, fails or falls back. Logs shadow rejections (at DEBUG only, since the message names
 * the user's key); metrics will count outcomes here.
 */
class DecisionOutcomes {

    private static final Log logger = LogFactory.getLog(DecisionOutcomes.class);

    /**
     * Records the outcome of one call.
     *
     * @param method the limited method called
     * @param key the key the call was limited under
     */
    void record(LimitedMethod method, String key, Decision decision, Outcome outcome) {
        if (outcome == Outcome.SHADOW_REJECTED && logger.isDebugEnabled()) {
            logger.debug("Shadow mode: limiter '" + method.limiter().name() + "' would have rejected key '" + key + "' at "
                    + method.site() + " (limit " + decision.limit() + ", remaining " + decision.remaining() + ", violated "
                    + decision.violatedLimit() + ", retry after " + decision.retryAfter().toMillis() + " ms); the call proceeds");
        }
    }
}
