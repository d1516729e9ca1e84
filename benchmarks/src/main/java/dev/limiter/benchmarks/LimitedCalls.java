package dev.limiter.benchmarks;

import dev.limiter.spring.RateLimited;


/** The annotated methods the benchmarks call; their limits come from configuration, as in an application. */
public class LimitedCalls {

    @RateLimited(name = "bench", key = "#key")
    public boolean bench(String key) {
        return true;
    }

    @RateLimited(name = "flood", key = "#key")
    public boolean flood(String key) {
        return true;
    }
}
