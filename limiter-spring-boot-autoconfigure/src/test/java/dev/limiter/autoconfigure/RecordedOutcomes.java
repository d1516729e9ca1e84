package dev.limiter.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.Outcome;

/** Hears the outcome of every decision, in order, for a test to read. */
class RecordedOutcomes implements DecisionListener {

    final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

    @Override
    public void onDecision(DecisionEvent event) {
        outcomes.add(event.outcome());
    }
}
