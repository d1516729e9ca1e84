package dev.limiter.autoconfigure;

import java.util.List;

import dev.limiter.Decision;
import dev.limiter.DecisionListener;
import dev.limiter.RateLimiter;

/** Tells every {@link DecisionListener} bean of each decision, in their order. */
final class CompositeDecisionListener implements DecisionListener {

    private final DecisionListener[] listeners;

    private CompositeDecisionListener(List<DecisionListener> listeners) {
        this.listeners = listeners.toArray(DecisionListener[]::new);
    }

    /** One listener for {@code listeners}: none, the only one, or all of them in turn. */
    static DecisionListener of(List<DecisionListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> DecisionListener.NONE;
            case 1 -> listeners.get(0);
            default -> new CompositeDecisionListener(listeners);
        };
    }

    @Override
    public void onDecision(RateLimiter limiter, Decision decision, long redisNanos) {
        for (DecisionListener listener : listeners) {
            listener.onDecision(limiter, decision, redisNanos);
        }
    }
}
