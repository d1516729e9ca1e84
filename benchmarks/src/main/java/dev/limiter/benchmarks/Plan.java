package dev.limiter.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Algorithm;

/** Every JMH run of a full benchmark, in the order they run: peers next to Limiter, under the same conditions. */
final class Plan {

    /** Thread counts of every workload. */
    static final int[] THREADS = { 1, 64 };

    /** Who is measured: one row of the result tables. */
    enum Subject {
        LIMITER_API("Limiter, public API", LimiterRedisBenchmark.class, true),
        LIMITER_ANNOTATED("Limiter, @RateLimited", LimiterRedisBenchmark.class, true),
        LIMITER_DENY_CACHE("Limiter, public API, local deny cache", LimiterRedisBenchmark.class, true),
        LIMITER_BATCHED("Limiter, public API, batching", LimiterRedisBenchmark.class, true),
        LIMITER_REACTIVE("Limiter, reactive API (64: in flight)", LimiterReactiveBenchmark.class, true),
        LIMITER_REACTIVE_BATCHED("Limiter, reactive API, batching (64: in flight)", LimiterReactiveBenchmark.class, true),
        BUCKET4J("Bucket4j (Lettuce, CAS), token bucket", Bucket4jRedisBenchmark.class, true),
        MEMORY_API("Limiter in memory, public API", InProcessBenchmark.class, false),
        MEMORY_ANNOTATED("Limiter in memory, @RateLimited", InProcessBenchmark.class, false),
        RESILIENCE4J("Resilience4j RateLimiter", InProcessBenchmark.class, false);

        final String label;

        final Class<?> benchmark;

        final boolean redis;

        Subject(String label, Class<?> benchmark, boolean redis) {
            this.label = label;
            this.benchmark = benchmark;
            this.redis = redis;
        }
    }

    /**
     * One JMH run: a benchmark with its parameters at a thread count; for the reactive API, the count
     * of decisions in flight, which one JMH thread keeps up.
     */
    record Run(Subject subject, Algorithm algorithm, Workload workload, int threads) {

        /** Threads JMH runs the benchmark on. */
        int jmhThreads() {
            return (subject.benchmark == LimiterReactiveBenchmark.class) ? 1 : threads;
        }

        String id() {
            return subject.name().toLowerCase().replace('_', '-') + "/" + ((algorithm != null) ? algorithm.configName() : "-") + "/"
                    + workload.name().toLowerCase().replace('_', '-') + "/" + threads;
        }

        Map<String, String> params() {
            Map<String, String> params = new LinkedHashMap<>();
            params.put("workload", workload.name());
            switch (subject) {
                case LIMITER_API, LIMITER_ANNOTATED, LIMITER_DENY_CACHE, LIMITER_BATCHED -> {
                    params.put("algorithm", algorithm.name());
                    params.put("path", subject == Subject.LIMITER_ANNOTATED ? "ANNOTATED" : "API");
                    params.put("denyCache", Boolean.toString(subject == Subject.LIMITER_DENY_CACHE));
                    params.put("batching", Boolean.toString(subject == Subject.LIMITER_BATCHED));
                }
                case LIMITER_REACTIVE, LIMITER_REACTIVE_BATCHED -> {
                    params.put("algorithm", algorithm.name());
                    params.put("batching", Boolean.toString(subject == Subject.LIMITER_REACTIVE_BATCHED));
                }
                case MEMORY_API, MEMORY_ANNOTATED, RESILIENCE4J -> {
                    params.put("algorithm", (algorithm != null ? algorithm : Algorithm.TOKEN_BUCKET).name());
                    params.put("implementation", switch (subject) {
                        case MEMORY_API -> "LIMITER_API";
                        case MEMORY_ANNOTATED -> "LIMITER_ANNOTATED";
                        default -> "RESILIENCE4J";
                    });
                }
                default -> {
                }
            }
            return params;
        }
    }

    /** The runs, grouped by workload and thread count so that what is compared runs close together. */
    static List<Run> runs() {
        List<Run> runs = new ArrayList<>();
        for (Workload workload : Workload.values()) {
            for (int threads : THREADS) {
                runs.add(new Run(Subject.BUCKET4J, null, workload, threads));
                for (Algorithm algorithm : Algorithm.values()) {
                    runs.add(new Run(Subject.LIMITER_API, algorithm, workload, threads));
                }
                for (Algorithm algorithm : Algorithm.values()) {
                    runs.add(new Run(Subject.LIMITER_ANNOTATED, algorithm, workload, threads));
                }
                // The deny cache matters when many callers share a key over its limit: 64 threads only, to keep the run short.
                if (workload != Workload.UNIFORM_KEYS && threads > 1) {
                    for (Algorithm algorithm : Algorithm.values()) {
                        runs.add(new Run(Subject.LIMITER_DENY_CACHE, algorithm, workload, threads));
                    }
                }
                // Batching changes nothing for one thread: a lone call goes out at once, as without it.
                if (threads > 1) {
                    for (Algorithm algorithm : Algorithm.values()) {
                        runs.add(new Run(Subject.LIMITER_BATCHED, algorithm, workload, threads));
                    }
                    // The reactive API with and without batching, for the default algorithm only, to keep the run short.
                    runs.add(new Run(Subject.LIMITER_REACTIVE, Algorithm.TOKEN_BUCKET, workload, LimiterReactiveBenchmark.IN_FLIGHT));
                    runs.add(new Run(Subject.LIMITER_REACTIVE_BATCHED, Algorithm.TOKEN_BUCKET, workload, LimiterReactiveBenchmark.IN_FLIGHT));
                }
            }
        }
        for (Workload workload : Workload.values()) {
            for (int threads : THREADS) {
                runs.add(new Run(Subject.RESILIENCE4J, null, workload, threads));
                runs.add(new Run(Subject.MEMORY_API, Algorithm.TOKEN_BUCKET, workload, threads));
                runs.add(new Run(Subject.MEMORY_ANNOTATED, Algorithm.TOKEN_BUCKET, workload, threads));
            }
        }
        return runs;
    }
}
