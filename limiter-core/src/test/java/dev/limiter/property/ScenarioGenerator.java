package dev.limiter.property;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

/**
 * Random but valid scenarios from a seed: a configuration of 1 to 3 limits (distinct windows,
 * increasing limits; bursts and max-wait for buckets; sub-windows that divide every window for the
 * sliding window) and requests whose steps are zero, tiny, ordinary, huge or backwards, whose keys
 * include ones that need escaping, and whose costs run from 1 to a little above a capacity.
 */
public final class ScenarioGenerator {

    /** 2023-11-14T22:13:20Z in microseconds: a multiple of every round window. */
    public static final long EPOCH_ALIGNED_START = 1_700_000_000_000_000L;

    /** Keys that have tripped key handling: empty, braces (hash tags), escapes, non-ASCII, an unpaired surrogate, one beyond the digest length. */
    public static final List<String> KEYS = List.of("alice", "", "{", "}", "%7B", "a}:{b", "%H", "\u00fc", "\uD83D\uDE00", "\uD800",
            "k".repeat(200), "k".repeat(199) + "j");

    private static final long DAY = 86_400_000_000L;

    private static final long MAX_WINDOW = 366 * DAY;

    private final Random random;

    private final Algorithm algorithm;

    private ScenarioGenerator(long seed, Algorithm algorithm) {
        // Each algorithm draws its own scenarios from a seed, and replaying (seed, algorithm) repeats them.
        this.random = new Random(seed * 31 + algorithm.ordinal());
        this.algorithm = algorithm;
    }

    /** The scenario of {@code size} requests that {@code seed} gives for {@code algorithm}. */
    public static Scenario generate(long seed, Algorithm algorithm, int size) {
        ScenarioGenerator generator = new ScenarioGenerator(seed, algorithm);
        return generator.scenario("seed " + seed + " (" + algorithm + ")", generator.config(), size);
    }

    /** The scenario of {@code size} requests that {@code seed} gives for a given configuration. */
    public static Scenario generate(long seed, RateLimiterConfig config, int size) {
        return new ScenarioGenerator(seed, config.algorithm()).scenario("seed " + seed + " (" + config + ")", config, size);
    }

    /** A random valid configuration for {@code algorithm}. */
    public static RateLimiterConfig config(long seed, Algorithm algorithm) {
        return new ScenarioGenerator(seed, algorithm).config();
    }

    private Scenario scenario(String name, RateLimiterConfig config, int size) {
        long start = EPOCH_ALIGNED_START + switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> -1;
            default -> random.nextInt(1_000_000_000);
        };
        List<String> keys = new ArrayList<>(KEYS);
        Collections.shuffle(keys, random);
        keys = keys.subList(0, 2 + random.nextInt(3));
        long span = span(config);
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            // The first key is the busiest, so its limits get exhausted.
            String key = keys.get(random.nextInt(3) == 0 ? random.nextInt(keys.size()) : 0);
            ops.add(op(config, span, key));
        }
        return new Scenario(name, config, start, ops);
    }

    private RateLimiterConfig config() {
        while (true) {
            try {
                return drawConfig();
            }
            catch (IllegalArgumentException ex) {
                // An invalid combination (burst too slow to refill, limits not increasing, too much to lend): draw again.
            }
        }
    }

    private RateLimiterConfig drawConfig() {
        int count = 1 + random.nextInt(3);
        int subWindows = (algorithm == Algorithm.SLIDING_WINDOW) ? pick(1, 2, 3, 4, 5, 10, 12, 60)
                : RateLimiterConfig.DEFAULT_SUB_WINDOWS;
        TreeSet<Long> windows = new TreeSet<>();
        while (windows.size() < count) {
            windows.add(window(subWindows));
        }
        List<LimitSpec> limits = new ArrayList<>();
        long limit = firstLimit();
        for (long window : windows) {
            limits.add(new LimitSpec(limit, micros(window), burst(limit)));
            limit = Math.min(LimitSpec.MAX_LIMIT, limit + 1 + (long) (random.nextDouble() * (3 * limit + 5)));
        }
        Duration maxWait = (algorithm.isBucket() && random.nextBoolean()) ? micros(maxWait(limits)) : Duration.ZERO;
        return new RateLimiterConfig(algorithm, limits, subWindows, maxWait);
    }

    private long window(int subWindows) {
        long window = switch (random.nextInt(20)) {
            case 0, 1 -> 1 + random.nextInt(1_000);
            case 2 -> pick(1_000_000L, 10_000_000L, 60_000_000L, 3_600_000_000L, DAY, 30 * DAY, MAX_WINDOW);
            case 3, 4, 5, 6, 7 -> logUniform(1e8, 2.6e12);
            default -> logUniform(1e5, 1e8);
        };
        return Math.min(MAX_WINDOW - MAX_WINDOW % subWindows, Math.max(subWindows, window - window % subWindows));
    }

    private long firstLimit() {
        return switch (random.nextInt(20)) {
            case 0 -> LimitSpec.MAX_LIMIT - random.nextInt(3);
            case 1, 2 -> logUniform(1e3, 1e7);
            case 3, 4, 5, 6, 7 -> 11 + random.nextInt(990);
            default -> 1 + random.nextInt(10);
        };
    }

    private long burst(long limit) {
        if (!algorithm.isBucket()) {
            return limit;
        }
        return switch (random.nextInt(10)) {
            case 0 -> 1;
            case 1, 2 -> 1 + (long) (random.nextDouble() * limit);
            case 3, 4, 5 -> Math.min(LimitSpec.MAX_LIMIT, limit + (long) (random.nextDouble() * 2 * limit));
            default -> limit;
        };
    }

    /** Up to a few times the slowest emission interval, at most a day. */
    private long maxWait(List<LimitSpec> limits) {
        double slowest = 0;
        for (LimitSpec limit : limits) {
            slowest = Math.max(slowest, (double) toMicros(limit.window()) / limit.limit());
        }
        long wait = (random.nextInt(4) == 0) ? 1 + random.nextInt(1_000_000) : (long) Math.ceil(slowest * 5 * random.nextDouble());
        return Math.max(1, Math.min(DAY, wait));
    }

    /** A typical step for this configuration: some fraction or multiple of a window or of an emission interval. */
    private long span(RateLimiterConfig config) {
        LimitSpec limit = config.limits().get(random.nextInt(config.limits().size()));
        double base = (algorithm.isBucket() && random.nextBoolean()) ? (double) toMicros(limit.window()) / limit.limit()
                : toMicros(limit.window());
        double factor = pick(0.001, 0.01, 0.1, 0.5, 1.0, 3.0);
        return Math.max(1, Math.min(MAX_WINDOW, (long) (base * factor)));
    }

    private Op op(RateLimiterConfig config, long span, String key) {
        long permits = permits(config);
        int roll = random.nextInt(100);
        if (roll < 10) {
            return Op.step(0, key, permits);
        }
        if (roll < 15) {
            return Op.step(1 + random.nextInt(3), key, permits);
        }
        if (roll < 18) {
            long longest = toMicros(config.limits().get(config.limits().size() - 1).window());
            return Op.step(1 + (long) (random.nextDouble() * Math.min(2 * longest, 400 * DAY)), key, permits);
        }
        if (roll < 21) {
            return Op.step(-1 - (long) (random.nextDouble() * span), key, permits);
        }
        if (roll < 33) {
            return Op.afterRetry(random.nextInt(3) - 1, key, permits);
        }
        if (roll < 38) {
            return Op.afterReset(random.nextInt(3) - 1, key, permits);
        }
        return Op.step((long) (random.nextDouble() * (span + 1)), key, permits);
    }

    private long permits(RateLimiterConfig config) {
        LimitSpec limit = config.limits().get(random.nextInt(config.limits().size()));
        long capacity = algorithm.isBucket() ? limit.burst() : limit.limit();
        int roll = random.nextInt(100);
        if (roll < 65 || capacity == 1 && roll < 80) {
            return 1;
        }
        if (roll < 80) {
            return 2 + random.nextInt((int) Math.min(capacity, 5) - 1);
        }
        if (roll < 93) {
            return 1 + (long) (random.nextDouble() * capacity);
        }
        return capacity + 1 + random.nextInt(2);
    }

    private long logUniform(double low, double high) {
        return (long) Math.exp(Math.log(low) + random.nextDouble() * (Math.log(high) - Math.log(low)));
    }

    @SafeVarargs
    private <T> T pick(T... choices) {
        return choices[random.nextInt(choices.length)];
    }

    static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    static long toMicros(Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000L;
    }
}
