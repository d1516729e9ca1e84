package dev.limiter.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.limiter.Algorithm;

/** What one benchmark run measured, by run and by ceiling. */
final class Results {

    /** The counts of {@link Tally} over the measured iterations. */
    record Counted(double seconds, long calls, long allowed, double saturatedSeconds, long saturatedAllowed, long cpuNanos,
            long scriptCalls, long scriptUsec, long redisCpuMicros, boolean redis) {

        /** CPU the client's JVM used per decision, in microseconds. */
        double clientCpuMicros() {
            return cpuNanos / 1e3 / calls;
        }

        /** CPU Redis used per decision, in microseconds. */
        double redisCpuMicrosPerDecision() {
            return (double) redisCpuMicros / calls;
        }

        /**
         * Admitted per second from the first rejection on (see {@link Tally}); without any rejection, over
         * the whole measured time: the callers did not even ask for the rate.
         */
        double admittedPerSecond() {
            return saturated() ? saturatedAllowed / saturatedSeconds : allowed / seconds;
        }

        /** Whether some call was rejected, so the limiter was asked for more than its rate. */
        boolean saturated() {
            return saturatedSeconds > 0;
        }

        double scriptsPerDecision() {
            return (double) scriptCalls / calls;
        }

        double scriptsPerSecond() {
            return scriptCalls / seconds;
        }
    }

    /** One JMH run: decisions per second, or why it failed. */
    record Entry(Plan.Run run, double perSecond, Counted counted, String error) {
    }

    private final Map<String, Entry> entries = new LinkedHashMap<>();

    private final Map<String, RedisCeiling.Result> ceilings = new HashMap<>();

    private final Map<String, ScriptCost.Result> scriptCosts = new HashMap<>();

    private double scriptCostLoadBefore = Double.NaN;

    private double scriptCostLoadAfter = Double.NaN;

    void put(Plan.Run run, double perSecond, Counted counted) {
        entries.put(run.id(), new Entry(run, perSecond, counted, null));
    }

    void fail(Plan.Run run, Exception ex) {
        entries.put(run.id(), new Entry(run, Double.NaN, null, String.valueOf(ex.getMessage())));
    }

    void putCeiling(Algorithm algorithm, Workload workload, int connections, RedisCeiling.Result result) {
        ceilings.put(algorithm + "/" + workload + "/" + connections, result);
    }

    void putScriptCost(Algorithm algorithm, Workload workload, ScriptCost.Result result) {
        scriptCosts.put(algorithm + "/" + workload, result);
    }

    /** Limiter's script against its lean reference, or null if not measured. */
    ScriptCost.Result scriptCost(Algorithm algorithm, Workload workload) {
        return scriptCosts.get(algorithm + "/" + workload);
    }

    /** The machine's load average around the script costs. */
    void scriptCostLoad(double before, double after) {
        scriptCostLoadBefore = before;
        scriptCostLoadAfter = after;
    }

    double scriptCostLoadBefore() {
        return scriptCostLoadBefore;
    }

    double scriptCostLoadAfter() {
        return scriptCostLoadAfter;
    }

    /** The run, or null if it was not run. */
    Entry get(Plan.Subject subject, Algorithm algorithm, Workload workload, int threads) {
        return entries.get(new Plan.Run(subject, algorithm, workload, threads).id());
    }

    /** Decisions per second of a run that succeeded, else NaN. */
    double perSecond(Plan.Subject subject, Algorithm algorithm, Workload workload, int threads) {
        Entry entry = get(subject, algorithm, workload, threads);
        return (entry != null) ? entry.perSecond() : Double.NaN;
    }

    RedisCeiling.Result ceiling(Algorithm algorithm, Workload workload, int connections) {
        return ceilings.get(algorithm + "/" + workload + "/" + connections);
    }

    boolean has(Plan.Subject subject) {
        return entries.values().stream().anyMatch(entry -> entry.run().subject() == subject);
    }

    /** The tally line a run's fork wrote, or null if it wrote none. */
    static Counted readTally(Path file, String id) {
        try {
            Counted found = null;
            for (String line : Files.readAllLines(file)) {
                Map<String, String> fields = new HashMap<>();
                for (String field : line.trim().split(" ")) {
                    int equals = field.indexOf('=');
                    fields.put(field.substring(0, equals), field.substring(equals + 1));
                }
                if (id.equals(fields.get("id"))) {
                    boolean redis = fields.containsKey("scriptCalls");
                    found = new Counted(Long.parseLong(fields.get("nanos")) / 1e9, Long.parseLong(fields.get("calls")),
                            Long.parseLong(fields.get("allowed")), Long.parseLong(fields.get("saturatedNanos")) / 1e9,
                            Long.parseLong(fields.get("saturatedAllowed")), Long.parseLong(fields.get("cpuNanos")),
                            redis ? Long.parseLong(fields.get("scriptCalls")) : 0, redis ? Long.parseLong(fields.get("scriptUsec")) : 0,
                            redis ? Long.parseLong(fields.get("redisCpuMicros")) : 0, redis);
                }
            }
            return found;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
