package dev.limiter.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.LongAdder;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Counts the calls of one benchmark, those admitted, and the scripts Redis ran meanwhile, over the
 * measured iterations: each from just before its threads start to just after they all stopped.
 *
 * <p>The admitted rate is counted from the first rejection of each measured iteration on: a limiter
 * keeps accruing permits while no one calls (between iterations, up to its burst), and the first
 * rejection shows that they have been used up, so from then on a limiter that is asked continuously
 * admits exactly its rate. The tally goes to the file named by {@code bench.tally} (one line per
 * benchmark run), else to standard output.
 */
@State(Scope.Benchmark)
public class Tally {

    private final LongAdder calls = new LongAdder();

    private final LongAdder allowed = new LongAdder();

    private boolean watchRedis;

    private long startNanos;

    private long startCalls;

    private long startAllowed;

    private BenchRedis.CommandStats startStats;

    private long startCpuNanos;

    private double startRedisCpuSeconds;

    private long cpuNanos;

    private double redisCpuSeconds;

    private long nanos;

    private long measuredCalls;

    private long measuredAllowed;

    private long scriptCalls;

    private long scriptUsec;

    private int measured;

    /** Whether a measured iteration runs: only then is the first rejection looked for. */
    private volatile boolean measuring;

    private volatile long firstRejectionNanos;

    private long allowedAtFirstRejection;

    private long saturatedNanos;

    private long saturatedAllowed;

    /** Records one decision. */
    public void count(boolean admitted) {
        calls.increment();
        if (admitted) {
            allowed.increment();
        }
        else if (firstRejectionNanos == 0 && measuring) {
            firstRejection();
        }
    }

    private synchronized void firstRejection() {
        if (firstRejectionNanos == 0) {
            allowedAtFirstRejection = allowed.sum();
            firstRejectionNanos = System.nanoTime();
        }
    }

    /** Also count the scripts Redis runs (benchmarks whose decisions go to Redis). */
    void watchRedis() {
        this.watchRedis = true;
    }

    @Setup(Level.Iteration)
    public void iterationStart(IterationParams iteration) {
        if (iteration.getType() != IterationType.MEASUREMENT) {
            return;
        }
        if (watchRedis) {
            startStats = BenchRedis.get().commandStats();
            startRedisCpuSeconds = BenchRedis.get().cpuSeconds();
        }
        startCpuNanos = processCpuNanos();
        startCalls = calls.sum();
        startAllowed = allowed.sum();
        firstRejectionNanos = 0;
        startNanos = System.nanoTime();
        measuring = true;
    }

    @TearDown(Level.Iteration)
    public void iterationEnd(BenchmarkParams benchmark, IterationParams iteration) {
        if (iteration.getType() != IterationType.MEASUREMENT) {
            return;
        }
        measuring = false;
        long end = System.nanoTime();
        nanos += end - startNanos;
        cpuNanos += processCpuNanos() - startCpuNanos;
        measuredCalls += calls.sum() - startCalls;
        measuredAllowed += allowed.sum() - startAllowed;
        if (firstRejectionNanos != 0) {
            saturatedNanos += end - firstRejectionNanos;
            saturatedAllowed += allowed.sum() - allowedAtFirstRejection;
        }
        if (watchRedis) {
            BenchRedis.CommandStats stats = BenchRedis.get().commandStats();
            scriptCalls += stats.scriptCalls() - startStats.scriptCalls();
            scriptUsec += stats.scriptUsec() - startStats.scriptUsec();
            redisCpuSeconds += BenchRedis.get().cpuSeconds() - startRedisCpuSeconds;
        }
        if (++measured == benchmark.getMeasurement().getCount()) {
            report(benchmark);
        }
    }

    /** CPU time of this JVM, all threads: what the client costs the machine, whatever else runs on it. */
    private static long processCpuNanos() {
        return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
                ? os.getProcessCpuTime() : 0;
    }

    private void report(BenchmarkParams benchmark) {
        StringBuilder line = new StringBuilder()
            .append("id=").append(System.getProperty("bench.id", benchmark.id()))
            .append(" nanos=").append(nanos)
            .append(" calls=").append(measuredCalls)
            .append(" allowed=").append(measuredAllowed)
            .append(" saturatedNanos=").append(saturatedNanos)
            .append(" saturatedAllowed=").append(saturatedAllowed)
            .append(" cpuNanos=").append(cpuNanos);
        if (watchRedis) {
            line.append(" scriptCalls=").append(scriptCalls).append(" scriptUsec=").append(scriptUsec)
                .append(" redisCpuMicros=").append(Math.round(redisCpuSeconds * 1e6));
        }
        String out = System.getProperty("bench.tally");
        if (out == null) {
            System.out.println("tally: " + line);
            return;
        }
        try {
            Files.writeString(Path.of(out), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
