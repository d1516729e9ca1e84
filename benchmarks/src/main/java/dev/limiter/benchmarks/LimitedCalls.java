package dev.limiter.benchmarks;

import dev.limiter.spring.RateLimited;

/** The annotated methods the benchmarks call; their limits come from configuration, as in an application. */
public class LimitedCalls {

    @RateLimited(name = "bench", key = "#key")
    public boolean bench(String key) {
        return true;
    }

    /** As {@link #bench}, a rejected call answered by {@link #rejected} instead of an exception. */
    @RateLimited(name = "bench", key = "#key", fallbackMethod = "rejected")
    public boolean benchOrFallBack(String key) {
        return true;
    }

    public boolean rejected(String key) {
        return false;
    }

    @RateLimited(name = "flood", key = "#key")
    public boolean flood(String key) {
        return true;
    }

    /** As {@link #flood}, a rejected call answered by {@link #rejected} instead of an exception. */
    @RateLimited(name = "flood", key = "#key", fallbackMethod = "rejected")
    public boolean floodOrFallBack(String key) {
        return true;
    }
}
