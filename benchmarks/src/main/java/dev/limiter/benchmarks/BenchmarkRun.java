package dev.limiter.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import dev.limiter.Algorithm;
import dev.limiter.test.TestRedis;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every benchmark of the issue in one go, on one Redis started for the run, and prints the
 * results as Markdown: JMH runs of Limiter and its peers, then {@code redis-benchmark} on the same
 * scripts, and those scripts' cost in Redis next to lean scripts of their families. Options:
 * {@code --quick} (short iterations, to check that everything runs), {@code --only REGEX} (runs whose
 * id matches, such as {@code limiter-api/token-bucket}, {@code ceiling/gcra} or {@code script-cost}),
 * {@code --out FILE} (where the Markdown goes besides standard output).
 */
public final class BenchmarkRun {

    /**
     * Iteration lengths of a full run and of a quick one. 64 threads on 2 cores leave the JIT compiler
     * little CPU: after 1.5 s of warmup the first measured second still ran at 60-80% of the speed
     * reached later, so contended runs warm up longer; in-process benchmarks also warm up on one
     * thread per core first ({@link Decider#warmUp}), without which a cold annotated path stayed in C1 code for
     * 10 to 20 s at 64 threads.
     */
    record Timing(Duration warmup, Duration contendedWarmup, Duration measurement, double ceilingSeconds, int scriptCostRounds) {

        /**
         * About 7-11 s per JMH run with the forked JVM's start (108 runs), about 20 minutes in all; the
         * script costs (12 pairs of scripts, three rounds each) about 2 minutes more.
         */
        static final Timing FULL = new Timing(Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofSeconds(3), 1.5, 3);

        static final Timing QUICK = new Timing(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofSeconds(1), 0.5, 1);

        /** Warmup of a run with this many threads. */
        Duration warmup(int threads) {
            return threads > 1 ? contendedWarmup : warmup;
        }
    }

    private BenchmarkRun() {
    }

    public static void main(String[] args) throws Exception {
        Timing timing = Timing.FULL;
        Pattern only = null;
        Path out = defaultOut();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> timing = Timing.QUICK;
                case "--only" -> only = Pattern.compile(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default -> {
                    System.err.println("Usage: java -jar benchmarks.jar [--quick] [--only REGEX] [--out FILE]");
                    System.exit(2);
                }
            }
        }
        long started = System.nanoTime();
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (TestRedis server = TestRedis.start()) {
            System.setProperty("bench.redis.host", server.host());
            System.setProperty("bench.redis.port", Integer.toString(server.port()));
            BenchRedis redis = BenchRedis.get();
            Results results = new Results();
            Path tally = Files.createTempFile("limiter-bench-tally", ".txt");
            List<Plan.Run> runs = new ArrayList<>();
            for (Plan.Run run : Plan.runs()) {
                if (only == null || only.matcher(run.id()).find()) {
                    runs.add(run);
                }
            }
            int done = 0;
            for (Plan.Run run : runs) {
                done++;
                if (run.subject().redis) {
                    redis.flushAll();
                }
                try {
                    double perSecond = jmh(run, timing, server, tally);
                    Results.Counted counted = Results.readTally(tally, run.id());
                    results.put(run, perSecond, counted);
                    System.err.printf(Locale.ROOT, "[%d/%d] %-55s %,12.0f decisions/s%n", done, runs.size(), run.id(), perSecond);
                }
                catch (RunnerException | RuntimeException ex) {
                    results.fail(run, ex);
                    System.err.printf(Locale.ROOT, "[%d/%d] %-55s FAILED: %s%n", done, runs.size(), run.id(), ex);
                }
            }
            Path executable = RedisCeiling.findExecutable();
            if (executable == null) {
                System.err.println("redis-benchmark not found (PATH, or beside LIMITER_TEST_REDIS_SERVER): no ceiling");
            }
            else {
                RedisCeiling ceiling = new RedisCeiling(redis, executable, timing.ceilingSeconds());
                for (Algorithm algorithm : Algorithm.values()) {
                    for (Workload workload : Workload.values()) {
                        for (int connections : Plan.THREADS) {
                            String id = "ceiling/" + algorithm.configName() + "/" + workload.name().toLowerCase().replace('_', '-') + "/"
                                    + connections;
                            if (only != null && !only.matcher(id).find()) {
                                continue;
                            }
                            RedisCeiling.Result result = ceiling.run(algorithm, workload, connections);
                            results.putCeiling(algorithm, workload, connections, result);
                            System.err.printf(Locale.ROOT, "%-63s %,12.0f calls/s, %.2f us per call in Redis%n", id, result.perSecond(),
                                    result.usecPerCall());
                        }
                    }
                }
                ScriptCost cost = new ScriptCost(ceiling, timing.scriptCostRounds());
                double loadBeforeCost = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                for (Algorithm algorithm : Algorithm.values()) {
                    for (Workload workload : ScriptCost.WORKLOADS) {
                        String id = ScriptCost.id(algorithm, workload);
                        if (only != null && !only.matcher(id).find()) {
                            continue;
                        }
                        ScriptCost.Result result = cost.measure(algorithm, workload);
                        results.putScriptCost(algorithm, workload, result);
                        System.err.printf(Locale.ROOT, "%-55s Limiter %6.2f us, lean %6.2f us per call in Redis: %.2fx%s%n", id,
                                result.limiterUsec(), result.leanUsec(), result.ratio(), Double.isNaN(result.timedLeanUsec()) ? ""
                                        : String.format(Locale.ROOT, "; lean with TIME %6.2f us: %.2fx", result.timedLeanUsec(), result.timedRatio()));
                    }
                }
                results.scriptCostLoad(loadBeforeCost, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            }
            Files.deleteIfExists(tally);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            Report.Machine machine = Report.Machine.current(redisVersion(redis), loadBefore, took);
            String markdown = new Report(results, machine, timing).render();
            System.out.println(markdown);
            if (out != null) {
                Files.writeString(out, markdown, StandardCharsets.UTF_8);
                System.err.println("Written to " + out.toAbsolutePath());
            }
        }
        System.exit(0);
    }

    private static double jmh(Plan.Run run, Timing timing, TestRedis server, Path tally) throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
            .include("^" + Pattern.quote(run.subject().benchmark.getName()) + "\\.decide$")
            .mode(Mode.Throughput)
            .timeUnit(TimeUnit.SECONDS)
            .threads(run.jmhThreads())
            .forks(1)
            .warmupIterations(1)
            .warmupTime(TimeValue.milliseconds(timing.warmup(run.threads()).toMillis()))
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(timing.measurement().toMillis()))
            .jvmArgsAppend("-Xms1g", "-Xmx1g", "-Dbench.redis.host=" + server.host(), "-Dbench.redis.port=" + server.port(),
                    "-Dbench.tally=" + tally, "-Dbench.id=" + run.id())
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT);
        for (Map.Entry<String, String> param : run.params().entrySet()) {
            options.param(param.getKey(), param.getValue());
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        if (results.size() != 1) {
            throw new IllegalStateException("expected one result for " + run.id() + " but got " + results.size());
        }
        return results.iterator().next().getPrimaryResult().getScore();
    }

    private static String redisVersion(BenchRedis redis) {
        Map<String, String> server = new HashMap<>();
        for (String line : redis.info("server").split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                server.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return server.getOrDefault("redis_version", "?");
    }

    /** Beside benchmarks.jar (benchmarks/target) when run from it, else the working directory. */
    private static Path defaultOut() throws IOException {
        try {
            Path jar = Path.of(BenchmarkRun.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path dir = Files.isDirectory(jar) ? jar.getParent() : jar.getParent();
            return dir.resolve("benchmark-results-" + LocalDate.now() + ".md");
        }
        catch (Exception ex) {
            return Path.of("benchmark-results.md");
        }
    }
}
