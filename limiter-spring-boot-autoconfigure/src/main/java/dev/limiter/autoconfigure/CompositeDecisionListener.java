package dev.limiter.autoconfigure;

import java.util.List;

import dev.limiter.ConcurrencyEvent;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.RateLimiter;

/** Tells every {@link DecisionListener} bean of each decision, in their order. */
final class CompositeDecisionListener implements DecisionListener {

    private final DecisionListener[] listeners;

    private CompositeDecisionListener(DecisionListener[] listeners) {
        this.listeners = listeners;
    }

    /** One listener for {@code listeners}: none, the only one, or all of them in turn. */
    static DecisionListener of(List<DecisionListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> DecisionListener.NONE;
            case 1 -> listeners.get(0);
            default -> new CompositeDecisionListener(listeners.toArray(DecisionListener[]::new));
        };
    }

    /** This listener while every listener hears decisions as itself; else the listeners each returned. */
    @Override
    public DecisionListener onStart(RateLimiter limiter) {
        DecisionListener[] started = null;
        for (int i = 0; i < listeners.length; i++) {
            DecisionListener heard = listeners[i].onStart(limiter);
            if (heard != listeners[i] && started == null) {
                started = listeners.clone();
            }
            if (started != null) {
                started[i] = heard;
            }
        }
        return (started != null) ? new CompositeDecisionListener(started) : this;
    }

    @Override
    public void onDecision(DecisionEvent event) {
        for (DecisionListener listener : listeners) {
            listener.onDecision(event);
        }
    }

    @Override
    public void onConcurrencyDecision(ConcurrencyEvent event) {
        for (DecisionListener listener : listeners) {
            listener.onConcurrencyDecision(event);
        }
    }

    @Override
    public void onSettleFailed(RateLimiter limiter, RuntimeException failure) {
        for (DecisionListener listener : listeners) {
            listener.onSettleFailed(limiter, failure);
        }
    }
}
