package dev.limiter.autoconfigure;

import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;

/** Turns a {@link LimiterConfigurationException} into a startup report naming the value and the fix. */
class LimiterConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LimiterConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LimiterConfigurationException cause) {
        return new FailureAnalysis(describe(cause, null), cause.getAction(), cause);
    }

    /** The report's description: where the value is (and, when known, where it was set), the value and the problem. */
    static String describe(LimiterConfigurationException failure, @Nullable Origin origin) {
        return "Invalid rate limiter configuration:\n\n    " + failure.getWhere() + "\n    value: " + failure.getValue()
                + ((origin != null) ? "\n    origin: " + origin : "") + "\n    problem: " + failure.getProblem();
    }
}
