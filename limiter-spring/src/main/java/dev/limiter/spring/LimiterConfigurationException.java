package dev.limiter.spring;

import org.jspecify.annotations.Nullable;

/**
 * A rate limiter configuration that cannot work, found at startup. Says where the bad value is
 * (a property or an annotation attribute), what it is, and how to fix it.
 */
public class LimiterConfigurationException extends RuntimeException {

    private final String where;

    private final String value;

    private final String problem;

    private final String action;

    /**
     * @param where the property or annotation attribute holding the bad value
     * @param value the bad value, as written; null for one removed or not set
     * @param problem what is wrong with it
     * @param action how to fix it
     */
    public LimiterConfigurationException(String where, @Nullable Object value, String problem, String action) {
        super(problem + " (" + where + " = " + value + "). " + action);
        this.where = where;
        this.value = String.valueOf(value);
        this.problem = problem;
        this.action = action;
    }

    /** The property or annotation attribute holding the bad value. */
    public String getWhere() {
        return where;
    }

    /** The bad value as written. */
    public String getValue() {
        return value;
    }

    /** What is wrong with the value. */
    public String getProblem() {
        return problem;
    }

    /** How to fix it. */
    public String getAction() {
        return action;
    }
}
