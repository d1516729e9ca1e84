package dev.limiter.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.RateLimiter;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What Redis itself can do with Limiter's scripts: {@code redis-benchmark} sending exactly the
 * EVALSHA a limiter sends, over as many unpipelined connections as the benchmark has threads, and
 * Redis' own time per script from INFO commandstats, each script run alone after CONFIG RESETSTAT.
 */
final class RedisCeiling {

    /** One redis-benchmark run. */
    record Result(double perSecond, double usecPerCall) {
    }

    private final BenchRedis redis;

    private final Path executable;

    private final double seconds;

    RedisCeiling(BenchRedis redis, Path executable, double seconds) {
        this.redis = redis;
        this.executable = executable;
        this.seconds = seconds;
    }

    /** redis-benchmark beside the redis-server the tests use (LIMITER_TEST_REDIS_SERVER), else on PATH; null if none. */
    static Path findExecutable() {
        String server = System.getenv("LIMITER_TEST_REDIS_SERVER");
        if (server != null) {
            Path beside = Path.of(server).resolveSibling("redis-benchmark");
            if (Files.isExecutable(beside)) {
                return beside;
            }
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, "redis-benchmark");
                if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    /** The script call of {@code algorithm} under {@code workload}, with the key a limiter would use. */
    ScriptCall scriptCall(Algorithm algorithm, Workload workload) {
        StringRedisTemplate template = redis.template();
        try {
            RateLimiter limiter = RedisRateLimiterFactory.builder(template).build().create(workload.limiterName(), workload.config(algorithm));
            // redis-benchmark puts a number from 0 to 99,999 (-r) in place of __rand_int__.
            String key = (workload == Workload.UNIFORM_KEYS) ? "user-__rand_int__" : workload.nextKey();
            return ScriptCall.of(limiter, key, redis);
        }
        finally {
            ((LettuceConnectionFactory) template.getConnectionFactory()).destroy();
        }
    }

    /** Runs the script of {@code algorithm} for about the configured time over {@code connections} connections. */
    Result run(Algorithm algorithm, Workload workload, int connections) {
        return run(scriptCall(algorithm, workload), workload, connections);
    }

    /**
     * Runs {@code call} (any script: Limiter's, or a lean reference) for about the configured time over
     * {@code connections} connections, on an empty Redis; Redis' time per call is of this run alone.
     */
    Result run(ScriptCall call, Workload workload, int connections) {
        String loaded = redis.scriptLoad(call.source());
        if (!loaded.equals(call.sha1())) {
            throw new IllegalStateException("Redis computed SHA1 " + loaded + " for the script, the call names " + call.sha1());
        }
        // Another script may have left a key of another type under the same name.
        redis.flushAll();
        // A short run finds the rate, so that the measured run lasts about the configured time.
        double rough = benchmark(call, workload, connections, Math.max(2_000, connections * 100)).perSecond();
        long requests = Math.max(5_000, (long) (rough * seconds));
        redis.flushAll();
        redis.resetStats();
        Result result = benchmark(call, workload, connections, requests);
        BenchRedis.CommandStats stats = redis.commandStats();
        return new Result(result.perSecond(), (double) stats.usec("evalsha") / Math.max(1, stats.calls("evalsha")));
    }

    private Result benchmark(ScriptCall call, Workload workload, int connections, long requests) {
        List<String> command = new ArrayList<>(List.of(executable.toString(), "-h", redis.host(), "-p", Integer.toString(redis.port()),
                "-c", Integer.toString(connections), "-n", Long.toString(requests), "--csv"));
        if (workload == Workload.UNIFORM_KEYS) {
            command.add("-r");
            command.add(Integer.toString(Workload.KEY_COUNT));
        }
        command.addAll(call.command());
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IllegalStateException("redis-benchmark failed: " + output);
            }
            return new Result(parseRps(output), Double.NaN);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** Requests per second from redis-benchmark's CSV: a header line, then "command","rps",... */
    static double parseRps(String output) {
        for (String line : output.split("\r?\n")) {
            String[] fields = line.split("\",\"");
            if (fields.length > 1 && !fields[0].equals("\"test")) {
                try {
                    return Double.parseDouble(fields[1].replace("\"", ""));
                }
                catch (NumberFormatException ex) {
                    // Not a result line; keep looking.
                }
            }
        }
        throw new IllegalStateException("no result in redis-benchmark's output: " + output);
    }
}
