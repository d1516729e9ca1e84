package dev.limiter.benchmarks;

/** One implementation under test: decides one call for a key, answering whether it was admitted. */
@FunctionalInterface
interface Decider {

    boolean decide(String key);
}
