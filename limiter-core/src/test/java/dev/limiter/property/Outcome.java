package dev.limiter.property;

import dev.limiter.Decision;

/**
 * What one implementation answered to one request: a decision, or the exception it threw (as text,
 * so that two implementations failing alike compare equal and a failure reads well in a report).
 */
record Outcome(Decision decision, String error) {

    static Outcome of(Decision decision) {
        return new Outcome(decision, null);
    }

    static Outcome of(Throwable error) {
        return new Outcome(null, error.getClass().getSimpleName() + ": " + error.getMessage());
    }

    @Override
    public String toString() {
        if (decision == null) {
            return "threw " + error;
        }
        Decision d = decision;
        return (d.allowed() ? "allowed" : "rejected") + " limit=" + d.limit() + " remaining=" + d.remaining() + " resetAfter="
                + Report.micros(d.resetAfter()) + " retryAfter=" + (Decision.NEVER.equals(d.retryAfter()) ? "NEVER" : Report.micros(d.retryAfter()))
                + " waitFor=" + Report.micros(d.waitFor()) + " violated=" + d.violatedLimit();
    }
}
