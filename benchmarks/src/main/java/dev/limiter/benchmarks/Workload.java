package dev.limiter.benchmarks;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * What the callers ask for, and the limit every implementation enforces for it. Hot key and uniform
 * keys share one limit: {@value #RATE_LIMIT} permits per {@value #RATE_WINDOW_MILLIS} ms (1000 per
 * second), bucket algorithms with a burst of {@value #RATE_BURST}. The window is short so that over a
 * few seconds the window algorithms, which admit in steps at window boundaries, admit the rate to
 * within a fraction of a percent; the burst covers a 100 ms stall of every caller (a GC pause, a busy
 * machine) without losing permits. The flood hits one key limited to 1 per second, so nearly every
 * call is rejected.
 */
public enum Workload {

    /** Every call on one key, far above its rate. */
    HOT_KEY("bench", Workload.RATE_LIMIT, Workload.RATE_WINDOW_MILLIS, Workload.RATE_BURST),

    /** Each call on one of {@value #KEY_COUNT} keys chosen uniformly: nearly every call admitted. */
    UNIFORM_KEYS("bench", Workload.RATE_LIMIT, Workload.RATE_WINDOW_MILLIS, Workload.RATE_BURST),

    /** Every call on one key limited to 1 per second: nearly every call rejected. */
    FLOOD("flood", 1, 1000, 1);

    static final int KEY_COUNT = 100_000;

    static final int RATE_LIMIT = 10;

    static final int RATE_WINDOW_MILLIS = 10;

    static final int RATE_BURST = 100;

    private static final String[] KEYS = new String[KEY_COUNT];

    static {
        for (int i = 0; i < KEY_COUNT; i++) {
            KEYS[i] = "user-" + i;
        }
    }

    private final String limiterName;

    private final int limit;

    private final int windowMillis;

    private final int burst;

    Workload(String limiterName, int limit, int windowMillis, int burst) {
        this.limiterName = limiterName;
        this.limit = limit;
        this.windowMillis = windowMillis;
        this.burst = burst;
    }

    /** The key of the next call. */
    String nextKey() {
        return switch (this) {
            case HOT_KEY -> "hot";
            case UNIFORM_KEYS -> KEYS[ThreadLocalRandom.current().nextInt(KEY_COUNT)];
            case FLOOD -> "flood";
        };
    }

    /** Every key of this workload, for clients that want them prepared. */
    static String key(int index) {
        return KEYS[index];
    }

    /** Name of the limiter the workload's calls go through: each limit has its own. */
    String limiterName() {
        return limiterName;
    }

    int limit() {
        return limit;
    }

    /** Capacity of the bucket algorithms. */
    int burst() {
        return burst;
    }

    Duration window() {
        return Duration.ofMillis(windowMillis);
    }

    /** Permits per second the limit admits in the long run. */
    double ratePerSecond() {
        return limit * 1000.0 / windowMillis;
    }

    RateLimiterConfig config(Algorithm algorithm) {
        LimitSpec spec = LimitSpec.of(limit, window());
        return RateLimiterConfig.of(algorithm, algorithm.isBucket() ? spec.withBurst(burst) : spec);
    }
}
