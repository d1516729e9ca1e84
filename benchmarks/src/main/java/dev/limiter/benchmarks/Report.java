package dev.limiter.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.limiter.Algorithm;
import dev.limiter.benchmarks.Plan.Subject;

/** The Markdown report of one run: the targets of the issue first, then every figure behind them. */
final class Report {

    /** Where and when the run happened. */
    record Machine(String date, int cores, long memoryBytes, String jdk, String redis, double loadBefore, double loadAfter,
            Duration took) {

        static Machine current(String redisVersion, double loadBefore, Duration took) {
            long memory = (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
                    ? os.getTotalMemorySize() : -1;
            return new Machine(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME).substring(0, 16),
                    Runtime.getRuntime().availableProcessors(), memory,
                    System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"), redisVersion, loadBefore,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), took);
        }
    }

    /** Ratio required for the public API against redis-benchmark with as many connections. */
    static final double CEILING_SHARE = 0.8;

    private final Results results;

    private final Machine machine;

    private final BenchmarkRun.Timing timing;

    private final StringBuilder out = new StringBuilder();

    Report(Results results, Machine machine, BenchmarkRun.Timing timing) {
        this.results = results;
        this.machine = machine;
        this.timing = timing;
    }

    String render() {
        line("## Run");
        line();
        line("%s; %d cores, %.1f GiB; %s; Redis %s; load average %.1f before, %.1f after; took %d min %d s.", machine.date(),
                machine.cores(), machine.memoryBytes() / (double) (1L << 30), machine.jdk(), machine.redis(), machine.loadBefore(),
                machine.loadAfter(), machine.took().toMinutes(), machine.took().toSecondsPart());
        line("Each figure: one JMH fork, one warmup iteration of %s (%s at 64 threads), one measured iteration of %s; redis-benchmark about %.1f s per run.",
                seconds(timing.warmup(1)), seconds(timing.warmup(64)), seconds(timing.measurement()), timing.ceilingSeconds());
        line("Limits: hot key and 100,000 keys %d per %d ms (1000/s; bucket algorithms and Bucket4j: burst %d); flood 1 per second.",
                Workload.RATE_LIMIT, Workload.RATE_WINDOW_MILLIS, Workload.RATE_BURST);
        line();
        targets();
        redisThroughput();
        admitted();
        ceiling();
        scriptCost();
        denyCache();
        inProcess();
        return out.toString();
    }

    private void targets() {
        line("## Targets");
        line();
        line("| target | measured | result |");
        line("|---|---|---|");
        double limiterHot = results.perSecond(Subject.LIMITER_API, Algorithm.TOKEN_BUCKET, Workload.HOT_KEY, 64);
        double bucket4jHot = results.perSecond(Subject.BUCKET4J, null, Workload.HOT_KEY, 64);
        double hotRatio = limiterHot / bucket4jHot;
        target("Hot key, 64 threads: Limiter ≥ 30x Bucket4j decisions/s",
                String.format(Locale.ROOT, "token bucket %s/s vs Bucket4j %s/s: **%.1fx**", count(limiterHot), count(bucket4jHot), hotRatio),
                hotRatio >= 30);

        // The same hot key with the local deny cache on (off by default): a hot key over its limit is a flood.
        Results.Entry denyHot = results.get(Subject.LIMITER_DENY_CACHE, Algorithm.TOKEN_BUCKET, Workload.HOT_KEY, 64);
        double denyHotPerSecond = results.perSecond(Subject.LIMITER_DENY_CACHE, Algorithm.TOKEN_BUCKET, Workload.HOT_KEY, 64);
        double denyHotRatio = denyHotPerSecond / bucket4jHot;
        double denyHotDeviation = hotKeyDeviation(denyHot);
        target("Hot key, 64 threads, with the local deny cache on: Limiter ≥ 30x Bucket4j decisions/s, admitting the rate within 1%",
                String.format(Locale.ROOT, "token bucket %s/s vs Bucket4j %s/s: **%.0fx**, admitting %s/s (**%+.2f%%**)",
                        count(denyHotPerSecond), count(bucket4jHot), denyHotRatio, admittedOf(denyHot), denyHotDeviation * 100),
                denyHotRatio >= 30 && Math.abs(denyHotDeviation) <= 0.01);

        double worstDeviation = Double.NaN;
        Algorithm worst = null;
        for (Algorithm algorithm : Algorithm.values()) {
            Results.Entry entry = results.get(Subject.LIMITER_API, algorithm, Workload.HOT_KEY, 64);
            double deviation = hotKeyDeviation(entry);
            if (!Double.isNaN(deviation) && (worst == null || Math.abs(deviation) > Math.abs(worstDeviation))) {
                worst = algorithm;
                worstDeviation = deviation;
            }
        }
        Results.Entry tokenBucket = results.get(Subject.LIMITER_API, Algorithm.TOKEN_BUCKET, Workload.HOT_KEY, 64);
        Results.Entry bucket4j = results.get(Subject.BUCKET4J, null, Workload.HOT_KEY, 64);
        double tokenBucketDeviation = hotKeyDeviation(tokenBucket);
        // Judged on the token bucket, the algorithm Bucket4j runs; the other five are shown beside it.
        target("Hot key, 64 threads: Limiter admits the configured rate (1000/s) within 1%",
                (worst == null) ? "not measured"
                        : String.format(Locale.ROOT, "token bucket %s/s (**%+.2f%%**); furthest of all six: %s %s/s (%+.2f%%); Bucket4j %s/s",
                                admittedOf(tokenBucket), tokenBucketDeviation * 100, worst.configName(),
                                admittedOf(results.get(Subject.LIMITER_API, worst, Workload.HOT_KEY, 64)), worstDeviation * 100,
                                admittedOf(bucket4j)),
                Math.abs(tokenBucketDeviation) <= 0.01);

        double limiterUniform = results.perSecond(Subject.LIMITER_API, Algorithm.TOKEN_BUCKET, Workload.UNIFORM_KEYS, 64);
        double bucket4jUniform = results.perSecond(Subject.BUCKET4J, null, Workload.UNIFORM_KEYS, 64);
        double uniformRatio = limiterUniform / bucket4jUniform;
        target("100,000 keys, 64 threads: Limiter ≥ 2.5x Bucket4j decisions/s",
                String.format(Locale.ROOT, "token bucket %s/s vs Bucket4j %s/s: **%.2fx**", count(limiterUniform), count(bucket4jUniform),
                        uniformRatio),
                uniformRatio >= 2.5);

        // Issue 14: batching, against the same limiter unbatched and against Bucket4j, in the same run.
        double batchedUniform = results.perSecond(Subject.LIMITER_BATCHED, Algorithm.TOKEN_BUCKET, Workload.UNIFORM_KEYS, 64);
        double batchedGain = batchedUniform / limiterUniform;
        double batchedRatio = batchedUniform / bucket4jUniform;
        target("100,000 keys, 64 threads, batching on: ≥ 2x the same limiter without batching and ≥ 2.5x Bucket4j decisions/s",
                String.format(Locale.ROOT, "token bucket batched %s/s vs unbatched %s/s: **%.2fx**; vs Bucket4j %s/s: **%.2fx**",
                        count(batchedUniform), count(limiterUniform), batchedGain, count(bucket4jUniform), batchedRatio),
                batchedGain >= 2 && batchedRatio >= 2.5);
        double reactiveUniform = results.perSecond(Subject.LIMITER_REACTIVE, Algorithm.TOKEN_BUCKET, Workload.UNIFORM_KEYS, 64);
        double reactiveBatchedUniform = results.perSecond(Subject.LIMITER_REACTIVE_BATCHED, Algorithm.TOKEN_BUCKET, Workload.UNIFORM_KEYS, 64);
        double reactiveGain = reactiveBatchedUniform / reactiveUniform;
        double reactiveRatio = reactiveBatchedUniform / bucket4jUniform;
        target("100,000 keys, 64 decisions in flight through the reactive API, batching on: ≥ 2x the same without batching and "
                + "≥ 2.5x Bucket4j (64 threads) decisions/s",
                String.format(Locale.ROOT, "token bucket batched %s/s vs unbatched %s/s: **%.2fx**; vs Bucket4j %s/s: **%.2fx**",
                        count(reactiveBatchedUniform), count(reactiveUniform), reactiveGain, count(bucket4jUniform), reactiveRatio),
                reactiveGain >= 2 && reactiveRatio >= 2.5);

        double worstShare = Double.NaN;
        String worstCase = null;
        for (Algorithm algorithm : Algorithm.values()) {
            for (Workload workload : Workload.values()) {
                double share = ceilingShare(algorithm, workload, 64);
                if (!Double.isNaN(share) && (worstCase == null || share < worstShare)) {
                    worstShare = share;
                    worstCase = algorithm.configName() + ", " + label(workload);
                }
            }
        }
        target("Public API, 64 threads ≥ 0.8x redis-benchmark, 64 connections, same script",
                (worstCase == null) ? "not measured"
                        : String.format(Locale.ROOT, "lowest of 6 algorithms x 3 workloads: **%.2fx** (%s); all in the ceiling table",
                                worstShare, worstCase),
                worstShare >= CEILING_SHARE);

        // Judged where the limiter's own cost is steady: one key, admitted or flooded. With 100,000 keys the
        // in-memory limiter's cache maintenance and GC vary from run to run by more than the aspect costs.
        double hotOverhead = annotatedOverheadNanos(Workload.HOT_KEY, 1);
        double floodOverhead = annotatedOverheadNanos(Workload.FLOOD, 1);
        target("@RateLimited adds < 1 µs per call over the public API (memory backend)",
                String.format(Locale.ROOT, "1 thread, token bucket: hot key **%.0f ns**, flood (every call rejected, so an exception) "
                        + "**%.0f ns**; not judged: 100,000 keys %.0f ns, where the in-memory figures swing widely from run to run "
                        + "(cache maintenance, GC)", hotOverhead, floodOverhead,
                        annotatedOverheadNanos(Workload.UNIFORM_KEYS, 1)),
                Math.max(hotOverhead, floodOverhead) < 1000);

        double worstCost = Double.NaN;
        String worstScript = null;
        for (Workload workload : Workload.values()) {
            for (Algorithm algorithm : Algorithm.values()) {
                double relative = scriptCostRelative(algorithm, workload);
                if (!Double.isNaN(relative) && (worstScript == null || relative > worstCost)) {
                    worstCost = relative;
                    worstScript = algorithm.configName() + ", " + label(workload);
                }
            }
        }
        target("Each script ≤ 2x the usec_per_call of fixed-window",
                (worstScript == null) ? "not measured"
                        : String.format(Locale.ROOT, "highest: **%.2fx** (%s)", worstCost, worstScript),
                worstCost <= 2);

        double worstLean = Double.NaN;
        String worstLeanCase = null;
        for (Workload workload : ScriptCost.WORKLOADS) {
            for (Algorithm algorithm : Algorithm.values()) {
                ScriptCost.Result cost = results.scriptCost(algorithm, workload);
                if (cost != null && (worstLeanCase == null || cost.ratio() > worstLean)) {
                    worstLean = cost.ratio();
                    worstLeanCase = algorithm.configName() + ", " + label(workload);
                }
            }
        }
        target("Each script ≤ " + ScriptCost.TARGET + "x the Redis µs per call of its family's lean script (hot key and 100,000 keys, one limit)",
                (worstLeanCase == null) ? "not measured"
                        : String.format(Locale.ROOT, "highest: **%.2fx** (%s); all in the script cost table", worstLean, worstLeanCase),
                worstLean <= ScriptCost.TARGET);

        {
            double worstExcess = Double.NaN;
            String worstFlood = null;
            for (Algorithm algorithm : Algorithm.values()) {
                for (int threads : Plan.THREADS) {
                    Results.Entry entry = results.get(Subject.LIMITER_DENY_CACHE, algorithm, Workload.FLOOD, threads);
                    if (entry != null && entry.counted() != null) {
                        double excess = entry.counted().scriptCalls() / allowedFloodCalls(entry.counted());
                        if (worstFlood == null || excess > worstExcess) {
                            worstExcess = excess;
                            worstFlood = String.format(Locale.ROOT, "%s, %d thread(s): %d scripts in %.1f s, at most %.0f allowed",
                                    algorithm.configName(), threads, entry.counted().scriptCalls(), entry.counted().seconds(),
                                    allowedFloodCalls(entry.counted()));
                        }
                    }
                }
            }
            target("Local deny cache: a flood on one rejected key sends Redis ≤ 1 call per retry-after period per instance",
                    (worstFlood == null) ? "not measured" : "most calls: " + worstFlood, worstExcess <= 1);
        }
        line();
    }

    /**
     * Scripts a flooding instance may send in the measured span: those admitted (the limit lets one through
     * each second), and one rejected call per retry-after period; periods last at most the flood's 1 s
     * window, so one per second, the span's edges included.
     */
    private static double allowedFloodCalls(Results.Counted counted) {
        return counted.allowed() + Math.ceil(counted.seconds() / Workload.FLOOD.window().toMillis() * 1000) + 1;
    }

    private void redisThroughput() {
        line("## Redis: decisions per second");
        line();
        line("One Redis, one Lettuce connection shared by the threads of each client (the default of `LettuceConnectionFactory`).");
        line("\"scripts/decision\" is what Redis ran per decision (INFO commandstats: EVALSHA and EVAL), so 1.00 means every "
                + "decision reached Redis once; for Bucket4j it counts compare-and-swap attempts (each after a GET).");
        line();
        header("client", "algorithm", true);
        for (Subject subject : List.of(Subject.BUCKET4J, Subject.LIMITER_API, Subject.LIMITER_ANNOTATED, Subject.LIMITER_DENY_CACHE,
                Subject.LIMITER_BATCHED, Subject.LIMITER_REACTIVE, Subject.LIMITER_REACTIVE_BATCHED)) {
            if (!results.has(subject)) {
                continue;
            }
            for (Algorithm algorithm : (subject == Subject.BUCKET4J) ? new Algorithm[] { null } : Algorithm.values()) {
                List<String> cells = new ArrayList<>(List.of(subject.label, (algorithm == null) ? "token-bucket" : algorithm.configName()));
                for (Workload workload : Workload.values()) {
                    for (int threads : Plan.THREADS) {
                        Results.Entry entry = results.get(subject, algorithm, workload, threads);
                        cells.add(throughputCell(entry, true));
                    }
                }
                if (measured(subject, algorithm)) {
                    row(cells);
                }
            }
        }
        line();
    }

    private void admitted() {
        line("## Hot key: admitted per second (configured: 1000/s)");
        line();
        line("Admitted per second from the first rejection of the measured iteration to its end: before it, a limiter "
                + "may still hold permits it accrued while no one called. Window algorithms admit in steps of 10 at window "
                + "boundaries (up to 0.5% over 2 s), and lose the permits of any 10 ms window in which every caller stalled "
                + "(a GC pause, a busy machine); bucket algorithms keep up to 100 ms of permits through such a stall.");
        line();
        line("| client | algorithm | 1 thread | 64 threads |");
        line("|---|---|---|---|");
        for (Subject subject : List.of(Subject.BUCKET4J, Subject.LIMITER_API, Subject.LIMITER_ANNOTATED, Subject.LIMITER_DENY_CACHE,
                Subject.LIMITER_BATCHED, Subject.LIMITER_REACTIVE, Subject.LIMITER_REACTIVE_BATCHED)) {
            if (!results.has(subject)) {
                continue;
            }
            for (Algorithm algorithm : (subject == Subject.BUCKET4J) ? new Algorithm[] { null } : Algorithm.values()) {
                List<String> cells = new ArrayList<>(List.of(subject.label, (algorithm == null) ? "token-bucket" : algorithm.configName()));
                for (int threads : Plan.THREADS) {
                    Results.Entry entry = results.get(subject, algorithm, Workload.HOT_KEY, threads);
                    if (entry == null || entry.counted() == null) {
                        cells.add(entry == null ? "" : "failed");
                        continue;
                    }
                    cells.add(String.format(Locale.ROOT, "%.1f (%+.2f%%)%s", entry.counted().admittedPerSecond(), hotKeyDeviation(entry) * 100,
                            entry.counted().saturated() ? "" : ", no call rejected: fewer decisions than the rate"));
                }
                if (measured(subject, algorithm)) {
                    row(cells);
                }
            }
        }
        line();
    }

    private void ceiling() {
        line("## Ceiling: redis-benchmark on the same scripts");
        line();
        line("`redis-benchmark` sending the EVALSHA Limiter sends (same script, key and arguments; 100,000 keys through `-r`), over "
                + "1 and 64 unpipelined connections, against Limiter's public API at 1 and 64 threads. \"µs in Redis\" is "
                + "`usec_per_call` of EVALSHA from INFO commandstats after CONFIG RESETSTAT, each script alone (64 connections); "
                + "\"vs fw\" divides it by fixed-window's for the same workload.");
        line();
        line("| algorithm | workload | redis-benchmark, 1 conn | Limiter, 1 thread | ratio | redis-benchmark, 64 conns | Limiter, 64 threads "
                + "| ratio | µs in Redis | vs fw |");
        line("|---|---|---|---|---|---|---|---|---|---|");
        for (Workload workload : Workload.values()) {
            for (Algorithm algorithm : Algorithm.values()) {
                RedisCeiling.Result one = results.ceiling(algorithm, workload, 1);
                RedisCeiling.Result many = results.ceiling(algorithm, workload, 64);
                if (one == null && many == null) {
                    continue;
                }
                row(List.of(algorithm.configName(), label(workload), (one == null) ? "" : count(one.perSecond()),
                        count(results.perSecond(Subject.LIMITER_API, algorithm, workload, 1)), ratio(ceilingShare(algorithm, workload, 1)),
                        (many == null) ? "" : count(many.perSecond()), count(results.perSecond(Subject.LIMITER_API, algorithm, workload, 64)),
                        ratio(ceilingShare(algorithm, workload, 64)),
                        (many == null) ? "" : String.format(Locale.ROOT, "%.2f", many.usecPerCall()),
                        ratio(scriptCostRelative(algorithm, workload))));
            }
        }
        line();
    }

    private void scriptCost() {
        boolean any = false;
        for (Algorithm algorithm : Algorithm.values()) {
            for (Workload workload : ScriptCost.WORKLOADS) {
                any |= results.scriptCost(algorithm, workload) != null;
            }
        }
        if (!any) {
            return;
        }
        line("## Script cost: Limiter's scripts against lean ones");
        line();
        line("µs per call in Redis (`usec_per_call` of EVALSHA, INFO commandstats after CONFIG RESETSTAT, each script alone) of "
                + "Limiter's script and of the lean script of its family (`benchmarks/src/main/resources/dev/limiter/benchmarks/lean/`: "
                + "floating point, one limit, the fewest commands), both through `redis-benchmark` with %d unpipelined connections on "
                + "the same key and limit, one after the other, %d round(s) each: the median, then every round. Load average %.1f "
                + "before, %.1f after. Target: at most %.1fx.", ScriptCost.CONNECTIONS, timing.scriptCostRounds(),
                results.scriptCostLoadBefore(), results.scriptCostLoadAfter(), ScriptCost.TARGET);
        line();
        line("| algorithm | workload | Limiter µs/call | rounds | lean µs/call | rounds | ratio | Limiter calls/s | lean calls/s | ≤ %.1fx |",
                ScriptCost.TARGET);
        line("|---|---|---|---|---|---|---|---|---|---|");
        boolean timed = false;
        for (Workload workload : ScriptCost.WORKLOADS) {
            for (Algorithm algorithm : Algorithm.values()) {
                ScriptCost.Result cost = results.scriptCost(algorithm, workload);
                if (cost == null) {
                    continue;
                }
                timed |= !Double.isNaN(cost.timedLeanUsec());
                row(List.of(algorithm.configName(), label(workload), String.format(Locale.ROOT, "%.2f", cost.limiterUsec()),
                        micros(cost.limiterRounds()), String.format(Locale.ROOT, "%.2f", cost.leanUsec()), micros(cost.leanRounds()),
                        ratio(cost.ratio()), count(cost.limiterPerSecond()), count(cost.leanPerSecond()),
                        (cost.ratio() <= ScriptCost.TARGET) ? "met" : "**missed**"));
            }
        }
        line();
        if (!timed) {
            return;
        }
        line("The fixed window's lean script above is the issue's: its window starts at the first permit and it reads no "
                + "time. Limiter's windows are aligned to the epoch, which needs Redis TIME; against a lean script with such "
                + "windows (`lean/%s.lua`: TIME, INCRBY, PEXPIREAT at the window's end on the first permit), measured in the "
                + "same rounds:", ScriptCost.TIMED_FIXED_WINDOW);
        line();
        line("| algorithm | workload | Limiter µs/call | lean with TIME µs/call | rounds | ratio | ≤ %.1fx |", ScriptCost.TARGET);
        line("|---|---|---|---|---|---|---|");
        for (Workload workload : ScriptCost.WORKLOADS) {
            for (Algorithm algorithm : Algorithm.values()) {
                ScriptCost.Result cost = results.scriptCost(algorithm, workload);
                if (cost == null || Double.isNaN(cost.timedLeanUsec())) {
                    continue;
                }
                row(List.of(algorithm.configName(), label(workload), String.format(Locale.ROOT, "%.2f", cost.limiterUsec()),
                        String.format(Locale.ROOT, "%.2f", cost.timedLeanUsec()), micros(cost.timedLeanRounds()), ratio(cost.timedRatio()),
                        (cost.timedRatio() <= ScriptCost.TARGET) ? "met" : "**missed**"));
            }
        }
        line();
    }

    private static String micros(double[] values) {
        List<String> each = new ArrayList<>();
        for (double value : values) {
            each.add(String.format(Locale.ROOT, "%.2f", value));
        }
        return String.join(", ", each);
    }

    private void denyCache() {
        if (!results.has(Subject.LIMITER_DENY_CACHE)) {
            return;
        }
        line("## Flood with the local deny cache");
        line();
        line("| algorithm | threads | decisions/s | admitted | scripts Redis ran | measured for | at most (admitted + 1 rejected per retry-after period) |");
        line("|---|---|---|---|---|---|---|");
        for (Algorithm algorithm : Algorithm.values()) {
            for (int threads : Plan.THREADS) {
                Results.Entry entry = results.get(Subject.LIMITER_DENY_CACHE, algorithm, Workload.FLOOD, threads);
                if (entry == null || entry.counted() == null) {
                    continue;
                }
                Results.Counted counted = entry.counted();
                row(List.of(algorithm.configName(), Integer.toString(threads), count(entry.perSecond()), Long.toString(counted.allowed()),
                        Long.toString(counted.scriptCalls()), String.format(Locale.ROOT, "%.1f s", counted.seconds()),
                        String.format(Locale.ROOT, "%.0f", allowedFloodCalls(counted))));
            }
        }
        line();
    }

    private void inProcess() {
        line("## In process: decisions per second");
        line();
        line("Limiter's memory backend (token bucket) and Resilience4j's `RateLimiter` (`limitForPeriod` 10 per 10 ms, no waiting; "
                + "one per key from its registry for 100,000 keys). The last row is what `@RateLimited` adds per call "
                + "(1/annotated - 1/API).");
        line();
        header("implementation", null, false);
        for (Subject subject : List.of(Subject.RESILIENCE4J, Subject.MEMORY_API, Subject.MEMORY_ANNOTATED)) {
            if (!results.has(subject)) {
                continue;
            }
            Algorithm algorithm = (subject == Subject.RESILIENCE4J) ? null : Algorithm.TOKEN_BUCKET;
            List<String> cells = new ArrayList<>(List.of(subject.label));
            for (Workload workload : Workload.values()) {
                for (int threads : Plan.THREADS) {
                    cells.add(throughputCell(results.get(subject, algorithm, workload, threads), false));
                }
            }
            row(cells);
        }
        List<String> overhead = new ArrayList<>(List.of("@RateLimited overhead per call"));
        for (Workload workload : Workload.values()) {
            for (int threads : Plan.THREADS) {
                double nanos = annotatedOverheadNanos(workload, threads);
                overhead.add(Double.isNaN(nanos) ? "" : String.format(Locale.ROOT, "%.0f ns", nanos));
            }
        }
        row(overhead);
        line();
        line("At 64 threads the overhead is of the whole 2-core machine's throughput, not of one call's latency.");
        line();
    }

    /** Limiter's public API against redis-benchmark with as many connections as threads, or NaN. */
    private double ceilingShare(Algorithm algorithm, Workload workload, int threads) {
        RedisCeiling.Result ceiling = results.ceiling(algorithm, workload, threads);
        double limiter = results.perSecond(Subject.LIMITER_API, algorithm, workload, threads);
        return (ceiling == null) ? Double.NaN : limiter / ceiling.perSecond();
    }

    /** Redis' time per call of a script over fixed-window's, same workload, or NaN. */
    private double scriptCostRelative(Algorithm algorithm, Workload workload) {
        RedisCeiling.Result script = results.ceiling(algorithm, workload, 64);
        RedisCeiling.Result fixed = results.ceiling(Algorithm.FIXED_WINDOW, workload, 64);
        return (script == null || fixed == null) ? Double.NaN : script.usecPerCall() / fixed.usecPerCall();
    }

    /** Nanoseconds the annotated path adds to one call on the memory backend, or NaN. */
    private double annotatedOverheadNanos(Workload workload, int threads) {
        double api = results.perSecond(Subject.MEMORY_API, Algorithm.TOKEN_BUCKET, workload, threads);
        double annotated = results.perSecond(Subject.MEMORY_ANNOTATED, Algorithm.TOKEN_BUCKET, workload, threads);
        return 1e9 / annotated - 1e9 / api;
    }

    private void header(String first, String second, boolean withScripts) {
        List<String> titles = new ArrayList<>();
        titles.add(first);
        if (second != null) {
            titles.add(second);
        }
        for (Workload workload : Workload.values()) {
            for (int threads : Plan.THREADS) {
                titles.add(label(workload) + ", " + threads + (threads == 1 ? " thread" : " threads")
                        + (withScripts ? " (scripts/decision)" : ""));
            }
        }
        row(titles);
        out.append("|").append("---|".repeat(titles.size())).append('\n');
    }

    /** Whether {@code subject} ran {@code algorithm} on any workload: the reactive API runs the token bucket alone. */
    private boolean measured(Subject subject, Algorithm algorithm) {
        for (Workload workload : Workload.values()) {
            for (int threads : Plan.THREADS) {
                if (results.get(subject, algorithm, workload, threads) != null) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String throughputCell(Results.Entry entry, boolean scripts) {
        if (entry == null) {
            return "";
        }
        if (entry.error() != null) {
            return "failed";
        }
        if (scripts && entry.counted() != null && entry.counted().redis()) {
            return String.format(Locale.ROOT, "%s (%.2f)", count(entry.perSecond()), entry.counted().scriptsPerDecision());
        }
        return count(entry.perSecond());
    }

    /** How far a hot-key run admitted from the configured rate (0.01 is 1% over); NaN when it was not counted. */
    private static double hotKeyDeviation(Results.Entry entry) {
        return (entry == null || entry.counted() == null) ? Double.NaN
                : entry.counted().admittedPerSecond() / Workload.HOT_KEY.ratePerSecond() - 1;
    }

    private static String admittedOf(Results.Entry entry) {
        return (entry == null || entry.counted() == null) ? "?" : String.format(Locale.ROOT, "%.1f", entry.counted().admittedPerSecond());
    }

    private void target(String target, String measured, boolean met) {
        boolean measuredAtAll = !measured.contains("NaN") && !measured.equals("not measured");
        row(List.of(target, measuredAtAll ? measured : "not measured", !measuredAtAll ? "not measured" : met ? "**met**" : "**missed**"));
    }

    static String label(Workload workload) {
        return switch (workload) {
            case HOT_KEY -> "hot key";
            case UNIFORM_KEYS -> "100,000 keys";
            case FLOOD -> "flood";
        };
    }

    private static String count(double perSecond) {
        return Double.isNaN(perSecond) ? "" : String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    private static String ratio(double ratio) {
        return Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.2fx", ratio);
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
    }

    private void row(List<String> cells) {
        out.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }

    private void line(String format, Object... args) {
        out.append(args.length == 0 ? format : String.format(Locale.ROOT, format, args)).append('\n');
    }

    private void line() {
        out.append('\n');
    }
}
