package dev.limiter.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** One implementation under test: decides one call for a key, answering whether it was admitted. */
@FunctionalInterface
interface Decider {

    boolean decide(String key);

    /**
     * Decides calls of {@code workload} for {@code duration} on one thread per core, so that the JIT
     * compiler has compiled the path, contended branches included, before many threads measure it. With
     * 64 threads on 2 cores the compiler's threads get a share of the CPU like any other: a cold annotated
     * path stayed in C1-compiled code for 10 to 20 seconds and ran at a fifth of its speed. Warmed on one
     * thread only, the compiled code had never seen a failed compare-and-set: the first contended calls
     * deoptimized it, and its recompilation starved again under 64 threads (seen with
     * {@code -XX:+PrintCompilation}). Either way the benchmark measured the compiler, not the limiter. A
     * server meets its peak warmed by the traffic before it.
     */
    default void warmUp(Workload workload, Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        Runnable decideUntilEnd = () -> {
            while (System.nanoTime() - end < 0) {
                for (int i = 0; i < 1_000; i++) {
                    decide(workload.nextKey());
                }
            }
        };
        int threads = Runtime.getRuntime().availableProcessors();
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread thread = new Thread(decideUntilEnd, "warm-up-" + i);
            thread.start();
            started.add(thread);
        }
        try {
            for (Thread thread : started) {
                thread.join();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while warming up", ex);
        }
    }
}
