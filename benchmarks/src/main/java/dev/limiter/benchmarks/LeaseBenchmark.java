package dev.limiter.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.redis.RedisRateLimiterFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One hot key with and without local leasing, through the public API on a private Redis: decisions
 * per second, admitted per second, and scripts Redis ran per decision (INFO commandstats), for each
 * bucket algorithm, at a limit far above the offered load (every call admitted: leasing's case) and
 * at the hot-key workload's limit (nearly every call rejected: nothing left to lease). A plain loop of
 * threads rather than JMH, to compare the two settings side by side quickly; run with
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.LeaseBenchmark [threads] [seconds] [lease permits]}.
 */
final class LeaseBenchmark {

    /** The lease's time-to-live. */
    static final Duration LEASE_TTL = Duration.ofMillis(50);

    private LeaseBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int threads = (args.length > 0) ? Integer.parseInt(args[0]) : 64;
        int seconds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
        RateLimiterConfig.Lease lease = new RateLimiterConfig.Lease((args.length > 2) ? Long.parseLong(args[2]) : 20, LEASE_TTL);
        BenchRedis redis = BenchRedis.get();
        System.out.printf(Locale.ROOT, "%d threads, %d s measured after 2 s warm-up, lease %s%n", threads, seconds, lease);
        System.out.printf(Locale.ROOT, "%-13s %-14s %-6s %14s %14s %18s%n", "algorithm", "limit", "lease", "decisions/s", "admitted/s",
                "scripts/decision");
        for (boolean underLimit : new boolean[] { true, false }) {
            for (Algorithm algorithm : List.of(Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET, Algorithm.GCRA)) {
                for (boolean leasing : new boolean[] { false, true }) {
                    RateLimiterConfig config = underLimit
                            ? RateLimiterConfig.of(algorithm, LimitSpec.of(1_000_000_000, Duration.ofSeconds(1)).withBurst(10_000_000))
                            : Workload.HOT_KEY.config(algorithm);
                    if (leasing) {
                        config = config.withLease(lease);
                    }
                    redis.flushAll();
                    Measured measured = measure(redis, config, threads, seconds);
                    System.out.printf(Locale.ROOT, "%-13s %-14s %-6s %,14.0f %,14.0f %18.3f%n", algorithm, underLimit ? "under (1e9/s)" : "hot-key 1000/s",
                            leasing ? "yes" : "no", measured.decisions / (double) seconds, measured.admitted / (double) seconds,
                            measured.scripts / (double) Math.max(1, measured.decisions));
                }
            }
        }
        System.exit(0);
    }

    private record Measured(long decisions, long admitted, long scripts) {
    }

    private static Measured measure(BenchRedis redis, RateLimiterConfig config, int threads, int seconds) throws InterruptedException {
        StringRedisTemplate template = redis.template();
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(template).keyPrefix("bench-lease").build();
        factory.warmUp();
        RateLimiter limiter = factory.create("hot", config);
        LongAdder decisions = new LongAdder();
        LongAdder admitted = new LongAdder();
        long warmUpEnd = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        long end = warmUpEnd + Duration.ofSeconds(seconds).toNanos();
        List<Thread> running = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread thread = new Thread(() -> {
                while (true) {
                    long now = System.nanoTime();
                    if (now >= end) {
                        return;
                    }
                    boolean allowed = limiter.tryAcquire("hot").allowed();
                    if (now >= warmUpEnd) {
                        decisions.increment();
                        if (allowed) {
                            admitted.increment();
                        }
                    }
                }
            });
            running.add(thread);
            thread.start();
        }
        Thread.sleep(Math.max(0, (warmUpEnd - System.nanoTime()) / 1_000_000));
        BenchRedis.CommandStats before = redis.commandStats();
        for (Thread thread : running) {
            thread.join();
        }
        BenchRedis.CommandStats after = redis.commandStats();
        long scripts = after.calls("evalsha") - before.calls("evalsha") + after.calls("eval") - before.calls("eval");
        factory.close();
        ((LettuceConnectionFactory) template.getConnectionFactory()).destroy();
        return new Measured(decisions.sum(), admitted.sum(), scripts);
    }
}
