package dev.limiter.property;

import java.util.List;
import java.util.Optional;

/**
 * Checks that several implementations give identical decisions for every request of a scenario; on
 * the first difference, shrinks the scenario and fails with a readable report.
 */
public final class Agreement {

    /** Failing scenarios shrunk and reported at most by {@link #checkAll}; shrinking takes time. */
    private static final int MAX_REPORTED = 3;

    private Agreement() {
    }

    /**
     * Asserts that {@code implementations} (the first being the reference) agree on {@code scenario}.
     *
     * @return what the run exercised
     * @throws AssertionError with the shrunk scenario and every answer at the step that differs
     */
    public static Tally check(Scenario scenario, List<Implementation> implementations) {
        Run run = Run.of(scenario, implementations);
        if (run.agrees()) {
            return Tally.of(run);
        }
        Scenario failing = scenario.withOps(scenario.ops().subList(0, run.disagreement() + 1));
        Scenario minimal = Shrinker.shrink(failing, candidate -> stillFails(candidate, implementations));
        Run minimalRun = Run.of(minimal, implementations);
        if (minimalRun.agrees()) {
            minimalRun = run;
        }
        throw new AssertionError(Report.of(scenario, run, minimalRun, implementations));
    }

    /**
     * Checks every scenario, so one known disagreement does not hide others: fails at the end with
     * the reports of the first {@value #MAX_REPORTED} failing scenarios and the names of the rest.
     *
     * @return what the agreeing runs exercised
     */
    public static Tally checkAll(List<Scenario> scenarios, List<Implementation> implementations) {
        Tally tally = Tally.NONE;
        List<String> reports = new java.util.ArrayList<>();
        List<String> unreported = new java.util.ArrayList<>();
        for (Scenario scenario : scenarios) {
            if (reports.size() >= MAX_REPORTED) {
                if (!Run.of(scenario, implementations).agrees()) {
                    unreported.add(scenario.name());
                }
                continue;
            }
            try {
                tally = tally.plus(check(scenario, implementations));
            }
            catch (AssertionError ex) {
                reports.add(ex.getMessage());
            }
        }
        if (!reports.isEmpty()) {
            throw new AssertionError(reports.size() + unreported.size() + " of " + scenarios.size() + " scenarios fail\n\n"
                    + String.join("\n", reports) + (unreported.isEmpty() ? "" : "\nAlso failing: " + unreported));
        }
        return tally;
    }

    private static Optional<Scenario> stillFails(Scenario candidate, List<Implementation> implementations) {
        Run run = Run.of(candidate, implementations);
        return run.agrees() ? Optional.empty() : Optional.of(candidate.withOps(candidate.ops().subList(0, run.disagreement() + 1)));
    }

    /**
     * What a run exercised, so tests can check that their scenarios are not trivial.
     *
     * @param requests requests run
     * @param allowed requests allowed
     * @param rejected requests rejected
     * @param never requests rejected for ever (above a capacity)
     * @param waited requests allowed after a wait
     */
    public record Tally(int requests, int allowed, int rejected, int never, int waited) {

        public static final Tally NONE = new Tally(0, 0, 0, 0, 0);

        static Tally of(Run run) {
            Tally tally = NONE;
            for (Run.Step step : run.steps) {
                var d = step.outcomes().get(0).decision();
                if (d != null) {
                    tally = tally.plus(new Tally(1, d.allowed() ? 1 : 0, d.allowed() ? 0 : 1, d.neverAllowed() ? 1 : 0,
                            d.waitFor().isZero() ? 0 : 1));
                }
            }
            return tally;
        }

        public Tally plus(Tally other) {
            return new Tally(requests + other.requests, allowed + other.allowed, rejected + other.rejected, never + other.never,
                    waited + other.waited);
        }
    }
}
