package dev.limiter.property;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Decision;

/**
 * One run of a scenario against several implementations, step by step, stopping at the first step
 * where they answer differently. The first implementation is the reference: its decisions place
 * the requests timed relative to a decision, and tell when a key's state is idle.
 */
final class Run {

    /** One request as run: the time it came at and every implementation's outcome. */
    record Step(Op op, long atMicros, List<Outcome> outcomes) {

        boolean agrees() {
            return outcomes.stream().allMatch(outcomes.get(0)::equals);
        }
    }

    /** A key's last decision by the reference, when it came, and when its state is idle. */
    private record Last(long atMicros, Decision decision, long idleAtMicros) {
    }

    final Scenario scenario;

    final List<Step> steps = new ArrayList<>();

    private Run(Scenario scenario) {
        this.scenario = scenario;
    }

    /** Whether every implementation answered every request alike. */
    boolean agrees() {
        return steps.isEmpty() || steps.get(steps.size() - 1).agrees();
    }

    /** Index of the step where the implementations disagree, -1 if none. */
    int disagreement() {
        return agrees() ? -1 : steps.size() - 1;
    }

    /** Runs {@code scenario} on fresh subjects of {@code implementations}. */
    static Run of(Scenario scenario, List<Implementation> implementations) {
        Run run = new Run(scenario);
        List<Subject> subjects = new ArrayList<>();
        try {
            for (Implementation implementation : implementations) {
                subjects.add(implementation.create(scenario.config()));
            }
            Map<String, Last> last = new HashMap<>();
            long now = scenario.startMicros();
            long latest = now;
            for (Op op : scenario.ops()) {
                now = time(op, now, last.get(op.key()), latest);
                latest = Math.max(latest, now);
                List<Outcome> outcomes = new ArrayList<>();
                try {
                    for (Subject subject : subjects) {
                        outcomes.add(call(subject, op, now));
                    }
                }
                catch (ExpiredInRealTime ex) {
                    System.err.println("Stopped comparing " + scenario.name() + " at request " + run.steps.size() + ": " + ex.getMessage());
                    return run;
                }
                Step step = new Step(op, now, outcomes);
                run.steps.add(step);
                if (!step.agrees()) {
                    break;
                }
                Decision decision = outcomes.get(0).decision();
                if (decision != null) {
                    Last before = last.get(op.key());
                    long idleAt = decision.allowed() ? now + micros(decision.resetAfter())
                            : (before != null) ? before.idleAtMicros() : Long.MIN_VALUE;
                    last.put(op.key(), new Last(now, decision, idleAt));
                }
            }
            return run;
        }
        finally {
            for (Subject subject : subjects) {
                subject.close();
            }
        }
    }

    private static Outcome call(Subject subject, Op op, long now) {
        try {
            return Outcome.of(subject.tryAcquire(op.key(), op.permits(), now));
        }
        catch (ExpiredInRealTime ex) {
            throw ex;
        }
        catch (RuntimeException | AssertionError ex) {
            return Outcome.of(ex);
        }
    }

    /**
     * When {@code op} comes. A clock that goes back is fine while a key's state still matters, but
     * once the clock has passed the moment a key's state went idle, implementations may or may not
     * have dropped it (expiry, eviction), and before that moment the two differ: such a request is
     * moved to that moment, where dropped and kept state agree.
     */
    private static long time(Op op, long now, Last last, long latest) {
        long at = switch (op.timing()) {
            case STEP -> now + op.micros();
            case AFTER_RETRY -> (last != null) ? Math.max(now, last.atMicros() + comeBack(last.decision()) + op.micros()) : now;
            case AFTER_RESET -> (last != null) ? Math.max(now, last.atMicros() + micros(last.decision().resetAfter()) + op.micros()) : now;
        };
        if (last != null && at < last.idleAtMicros() && last.idleAtMicros() <= latest) {
            at = last.idleAtMicros();
        }
        return at;
    }

    /** When a decision said to come back: its retry-after (finite), or its wait. */
    private static long comeBack(Decision decision) {
        if (!decision.allowed() && !Decision.NEVER.equals(decision.retryAfter())) {
            return micros(decision.retryAfter());
        }
        return micros(decision.waitFor());
    }

    static long micros(java.time.Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000L;
    }
}
