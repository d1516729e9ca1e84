package dev.limiter.autoconfigure;

import java.time.Duration;

import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;

/**
 * Reports a {@code limiter.*} duration that Spring Boot could not bind (such as {@code window: 10 seconds})
 * as every limiter mistake is reported: the property, the value, where it was set, and the forms a duration
 * takes. Ahead of Boot's own analysis, which names no accepted form.
 */
class LimiterBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

    static final String DURATION_FORMS = "Write a number and a unit without a space: 10s, 500ms, 1m, 2h or 1d "
            + "(units ns, us, ms, s, m, h, d), or an ISO-8601 duration such as PT10S; a number alone means milliseconds";

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
        LimiterConfigurationException failure = durationFailure(cause);
        if (failure == null) {
            return null;
        }
        Origin origin = (cause.getProperty() != null) ? cause.getProperty().getOrigin() : null;
        return new FailureAnalysis(LimiterConfigurationFailureAnalyzer.describe(failure, origin), failure.getAction(), cause);
    }

    /** The failure to bind a {@code limiter.*} duration as a limiter configuration mistake; null for any other failure. */
    static @Nullable LimiterConfigurationException durationFailure(BindException ex) {
        String name = ex.getName().toString();
        Class<?> target = ex.getTarget().getType().resolve();
        // A window (LimiterProperties.Limit#setWindow) and a zone fail inside the binding of their limiter: named by the property.
        String property = (ex.getProperty() != null) ? ex.getProperty().getName().toString() : name;
        Object value = (ex.getProperty() != null) ? ex.getProperty().getValue() : null;
        Object shown = (value instanceof CharSequence) ? "\"" + value + "\"" : value;
        if (property.startsWith("limiter.") && property.endsWith(".zone")) {
            return new LimiterConfigurationException(property, shown, "Not a time zone",
                    "Write a region id such as Europe/Berlin or America/New_York, or UTC");
        }
        if (property.startsWith("limiter.") && property.endsWith(".window") && target != Duration.class) {
            return new LimiterConfigurationException(property, shown, "Not a window",
                    DURATION_FORMS + "; with a zone, a calendar window: 1d, 1w or 1mo");
        }
        if (!name.startsWith("limiter.") || target != Duration.class) {
            return null;
        }
        return new LimiterConfigurationException(name, shown, "Not a duration", DURATION_FORMS);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
