package dev.limiter.autoconfigure;

import dev.limiter.spring.LimiterConfigurationException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;

/**
 * Retunes the limiters when Spring Cloud changes {@code limiter.*} properties (a refresh, or
 * {@code POST /actuator/env}). A change startup would refuse is logged and not applied: the limits
 * in force stay until a valid one comes.
 */
final class LimiterEnvironmentChangeListener implements ApplicationListener<EnvironmentChangeEvent> {

    private static final Log logger = LogFactory.getLog(LimiterEnvironmentChangeListener.class);

    private final LimiterRetuner retuner;

    LimiterEnvironmentChangeListener(LimiterRetuner retuner) {
        this.retuner = retuner;
    }

    @Override
    public void onApplicationEvent(EnvironmentChangeEvent event) {
        if (event.getKeys().stream().noneMatch((key) -> key.startsWith("limiter."))) {
            return;
        }
        try {
            retuner.retune();
        }
        catch (LimiterConfigurationException ex) {
            logger.error("Limiter configuration change refused; the limits in force stay:\n\n    " + ex.getWhere() + "\n    value: "
                    + ex.getValue() + "\n    problem: " + ex.getProblem() + "\n\nAction:\n\n" + ex.getAction());
        }
        catch (RuntimeException ex) {
            // Whatever happens, the other listeners of the refresh must still hear of it.
            logger.error("Limiter configuration change not applied; the limits in force stay", ex);
        }
    }
}
