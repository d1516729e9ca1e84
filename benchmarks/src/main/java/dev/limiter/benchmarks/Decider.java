package dev.limiter.benchmarks;

import java.time.Duration;

/** One implementation under test: decides one call for a key, answering whether it was admitted. */
@FunctionalInterface
interface Decider {

    boolean decide(String key);

    /**
     * Decides calls of {@code workload} on this one thread for {@code duration}, so that the JIT compiler
     * has compiled the path before many threads measure it. With 64 threads on 2 cores the compiler's
     * threads get a share of the CPU like any other: a cold annotated path stayed in C1-compiled code for
     * 10 to 20 seconds and ran at a fifth of its speed, which measured the compiler's starvation, not the
     * limiter. A server meets its peak warmed by the traffic before it.
     */
    default void warmUp(Workload workload, Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() - end < 0) {
            for (int i = 0; i < 1_000; i++) {
                decide(workload.nextKey());
            }
        }
    }
}
