package dev.limiter.benchmarks;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.RateLimiter;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Limiting in this process: Limiter's memory backend through its public API and through an annotated
 * method, against Resilience4j's {@code RateLimiter} (one per key from its registry, as a user limiting
 * per key would do), with the same limit.
 */
@State(Scope.Benchmark)
public class InProcessBenchmark {

    /** The in-process limiter measured. */
    public enum Implementation {
        /** {@code InMemoryRateLimiterFactory.create(...).tryAcquire(key)}. */
        LIMITER_API,
        /** A {@code @RateLimited} method, {@code limiter.backend=memory}. */
        LIMITER_ANNOTATED,
        /** The same methods answering a rejection through their fallback method: no exception thrown through the proxy. */
        LIMITER_ANNOTATED_FALLBACK,
        /** Resilience4j's {@code RateLimiter}, never waiting for a permit. */
        RESILIENCE4J
    }

    @Param
    public Implementation implementation;

    @Param("TOKEN_BUCKET")
    public Algorithm algorithm;

    @Param
    public Workload workload;

    private Decider decider;

    private AnnotatedApp app;

    @Setup(Level.Trial)
    public void setUp() {
        switch (implementation) {
            case LIMITER_API -> {
                RateLimiter limiter = new InMemoryRateLimiterFactory().create(workload.limiterName(), workload.config(algorithm));
                decider = key -> limiter.tryAcquire(key).allowed();
            }
            case LIMITER_ANNOTATED -> {
                app = AnnotatedApp.inMemory(algorithm, workload);
                decider = app::call;
            }
            case LIMITER_ANNOTATED_FALLBACK -> {
                app = AnnotatedApp.inMemory(algorithm, workload);
                decider = app::callOrFallBack;
            }
            case RESILIENCE4J -> {
                // limitForPeriod permits per refresh period: Resilience4j's own cycle, like a fixed window.
                RateLimiterRegistry registry = RateLimiterRegistry.of(RateLimiterConfig.custom()
                    .limitForPeriod(workload.limit())
                    .limitRefreshPeriod(workload.window())
                    .timeoutDuration(Duration.ZERO)
                    .build());
                if (workload == Workload.UNIFORM_KEYS) {
                    decider = key -> registry.rateLimiter(key).acquirePermission();
                }
                else {
                    io.github.resilience4j.ratelimiter.RateLimiter limiter = registry.rateLimiter(workload.nextKey());
                    decider = key -> limiter.acquirePermission();
                }
            }
        }
        decider.warmUp(workload, PER_CORE_WARMUP);
    }

    /** How long each implementation decides on one thread per core before JMH's warmup: see {@link Decider#warmUp}. */
    static final Duration PER_CORE_WARMUP = Duration.ofSeconds(3);

    @Benchmark
    public boolean decide(Tally tally) {
        boolean allowed = decider.decide(workload.nextKey());
        tally.count(allowed);
        return allowed;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (app != null) {
            app.close();
        }
    }
}
