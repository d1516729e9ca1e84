package dev.limiter.autoconfigure;

import dev.limiter.spring.LimiterConfigurationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link LimiterConfigurationException} into a startup report naming the value and the fix. */
class LimiterConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LimiterConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LimiterConfigurationException cause) {
        String description = "Invalid rate limiter configuration:\n\n    " + cause.getWhere() + "\n    value: " + cause.getValue()
                + "\n    problem: " + cause.getProblem();
        return new FailureAnalysis(description, cause.getAction(), cause);
    }
}
