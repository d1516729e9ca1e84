package dev.limiter.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import dev.limiter.Algorithm;

import org.springframework.data.redis.core.script.DigestUtils;

/**
 * Redis' time per call of each algorithm's script next to the lean script of its family (issue 14):
 * the lean scripts (resources under {@code dev/limiter/benchmarks/lean/}) do what a hand-written limiter
 * of that family does in the fewest Redis commands, in floating point, for one limit. Both run through
 * {@code redis-benchmark} on the same key with the same limit, alternately, each alone after CONFIG
 * RESETSTAT; the figure is {@code usec_per_call} of EVALSHA from INFO commandstats.
 */
final class ScriptCost {

    /** The target: a script costs Redis at most this many times its lean reference. */
    static final double TARGET = 1.5;

    /** Unpipelined connections of every run, as in the measurement. */
    static final int CONNECTIONS = 64;

    /**
     * The second lean fixed window: the reference (lean/fixed-window.lua) starts its window at the
     * first permit and reads no time, Limiter's windows are aligned to the epoch and need TIME; this one
     * has those windows, so the fixed window is also judged against a reference doing the same job.
     */
    static final String TIMED_FIXED_WINDOW = "fixed-window-time";

    /** The workloads judged: one hot key, and 100,000 keys. */
    static final List<Workload> WORKLOADS = List.of(Workload.HOT_KEY, Workload.UNIFORM_KEYS);

    /**
     * Medians of the rounds, and each round's µs per call (Limiter's, then the lean script's); for the
     * fixed window also the second lean script's, the one with epoch-aligned windows that reads TIME
     * (NaN and no rounds for the other algorithms).
     */
    record Result(double limiterUsec, double leanUsec, double limiterPerSecond, double leanPerSecond, double[] limiterRounds,
            double[] leanRounds, double timedLeanUsec, double[] timedLeanRounds) {

        /** How many times the lean script's time Limiter's script costs Redis. */
        double ratio() {
            return limiterUsec / leanUsec;
        }

        /** How many times the second lean script's time Limiter's script costs Redis, or NaN. */
        double timedRatio() {
            return limiterUsec / timedLeanUsec;
        }
    }

    private final RedisCeiling ceiling;

    private final int rounds;

    ScriptCost(RedisCeiling ceiling, int rounds) {
        this.ceiling = ceiling;
        this.rounds = rounds;
    }

    /** Id of one measurement, for {@code --only}: {@code script-cost/token-bucket/hot-key}. */
    static String id(Algorithm algorithm, Workload workload) {
        return "script-cost/" + algorithm.configName() + "/" + workload.name().toLowerCase().replace('_', '-');
    }

    /**
     * Runs Limiter's script and the lean one (and for the fixed window the lean one that reads TIME) in
     * turn, {@code rounds} times each, so that a change of the machine's load touches all alike; the
     * median of each is reported.
     */
    Result measure(Algorithm algorithm, Workload workload) {
        ScriptCall limiter = ceiling.scriptCall(algorithm, workload);
        ScriptCall lean = lean(algorithm, workload, limiter.command().get(3));
        ScriptCall timedLean = (algorithm == Algorithm.FIXED_WINDOW) ? lean(TIMED_FIXED_WINDOW, workload, limiter.command().get(3)) : null;
        double[] limiterUsec = new double[rounds];
        double[] leanUsec = new double[rounds];
        double[] limiterPerSecond = new double[rounds];
        double[] leanPerSecond = new double[rounds];
        double[] timedLeanUsec = new double[(timedLean == null) ? 0 : rounds];
        for (int round = 0; round < rounds; round++) {
            RedisCeiling.Result mine = ceiling.run(limiter, workload, CONNECTIONS);
            RedisCeiling.Result reference = ceiling.run(lean, workload, CONNECTIONS);
            limiterUsec[round] = mine.usecPerCall();
            limiterPerSecond[round] = mine.perSecond();
            leanUsec[round] = reference.usecPerCall();
            leanPerSecond[round] = reference.perSecond();
            if (timedLean != null) {
                timedLeanUsec[round] = ceiling.run(timedLean, workload, CONNECTIONS).usecPerCall();
            }
        }
        return new Result(median(limiterUsec), median(leanUsec), median(limiterPerSecond), median(leanPerSecond), limiterUsec, leanUsec,
                (timedLean == null) ? Double.NaN : median(timedLeanUsec), timedLeanUsec);
    }

    /** The lean script of {@code algorithm}'s family on {@code key}, asking one permit of the workload's limit. */
    static ScriptCall lean(Algorithm algorithm, Workload workload, String key) {
        return lean(algorithm.configName(), workload, key);
    }

    /** The lean script {@code lean/<name>.lua} on {@code key}, asking one permit of the workload's limit. */
    static ScriptCall lean(String name, Workload workload, String key) {
        String source = leanSource(name);
        String sha1 = DigestUtils.sha1DigestAsHex(source);
        return new ScriptCall(source, sha1, List.of("EVALSHA", sha1, "1", key, "1", Integer.toString(workload.limit()),
                Long.toString(workload.window().toNanos() / 1000), Integer.toString(workload.burst())));
    }

    static String leanSource(String name) {
        String location = "dev/limiter/benchmarks/lean/" + name + ".lua";
        try (InputStream in = ScriptCost.class.getClassLoader().getResourceAsStream(location)) {
            if (in == null) {
                throw new IllegalStateException("lean script " + location + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
