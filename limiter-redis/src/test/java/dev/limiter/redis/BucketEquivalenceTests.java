package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.algorithm.GcraModel;
import dev.limiter.internal.algorithm.LeakyBucketModel;
import dev.limiter.internal.algorithm.LocalAlgorithm;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Token bucket, leaky bucket and GCRA are three views of one rule (docs/algorithms.md): for the same
 * requests at the same times they must give identical decisions, on Redis and in memory, and equal
 * to the exact reference models. Histories are random but seeded, so a failure replays exactly.
 */
@RedisTest
class BucketEquivalenceTests {

    static final Algorithm[] BUCKETS = { Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET, Algorithm.GCRA };

    static final String[] KEYS = { "alice", "bob", "carol" };

    static final long SECOND = 1_000_000;

    static LongStream seeds() {
        return LongStream.range(1, 25);
    }

    /**
     * One seeded random history: its requests, and the limits they meet.
     *
     * @param everyLimitBinds whether each limit must reject something, proving the history exercises them all
     */
    record History(String name, long seed, RateLimiterConfig config, boolean everyLimitBinds) {

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<History> histories() {
        List<History> histories = new ArrayList<>();
        RateLimiterConfig perSecondAndMinute = RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, LimitSpec.of(3, Duration.ofSeconds(1)),
                LimitSpec.of(10, Duration.ofMinutes(1)));
        RateLimiterConfig threeLimits = RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, new LimitSpec(5, Duration.ofSeconds(10), 8),
                new LimitSpec(20, Duration.ofMinutes(1), 10), new LimitSpec(60, Duration.ofHours(1), 15));
        histories.add(new History("3/s and 10/min", 101, perSecondAndMinute, true));
        histories.add(new History("3/s and 10/min, max-wait 0.5 s", 102, perSecondAndMinute.withMaxWait(Duration.ofMillis(500)), true));
        histories.add(new History("5/10s, 20/min and 60/h", 103, threeLimits, true));
        histories.add(new History("5/10s, 20/min and 60/h, max-wait 5 s", 104, threeLimits.withMaxWait(Duration.ofSeconds(5)), true));
        seeds().forEach(seed -> {
            // Every permit takes at least 1 s to come back, so a key Redis expires in real time is idle
            // in virtual time as well.
            RateLimiterConfig config = randomConfig(new Random(seed), new long[] { 2, 10, 60, 600, 3_600 }, 1, seed % 2 == 0);
            histories.add(new History("seed " + seed + ": " + config, seed, config, false));
        });
        return histories.stream();
    }

    /**
     * Forward-moving time through the real limiters: Redis scripts, and twins behind their expiring
     * cache.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("histories")
    void bucketsDecideAlikeOnBothBackends(History history) {
        RateLimiterConfig config = history.config();
        Random random = new Random(history.seed() * 31);
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + random.nextInt(1_000_000_000));
        String prefix = TestRedisSupport.uniquePrefix();
        List<RateLimiter> limiters = new ArrayList<>();
        for (Backend backend : Backend.values()) {
            for (Algorithm algorithm : BUCKETS) {
                limiters.add(backend.factory(clock, prefix).create("eq", withAlgorithm(config, algorithm)));
            }
        }
        Models models = new Models(config);
        Outcomes outcomes = new Outcomes();
        for (int step = 0; step < 400; step++) {
            clock.advanceMicros(randomStep(random, config, step));
            String key = KEYS[random.nextInt(KEYS.length)];
            long cost = randomCost(random, config);
            long now = clock.nowMicros();
            Decision expected = models.leaky.tryAcquire(key, cost, now);
            String where = history + ", step " + step + " at " + now + " us, key " + key + ", cost " + cost;
            assertEquals(expected, models.gcra.tryAcquire(key, cost, now), "GCRA model, " + where);
            for (RateLimiter limiter : limiters) {
                assertEquals(expected, limiter.tryAcquire(key, cost), limiter + ", " + where);
            }
            outcomes.count(expected);
        }
        outcomes.check(config);
        if (history.everyLimitBinds()) {
            assertThat(outcomes.violated).as("limits that rejected a request").containsExactlyInAnyOrderElementsOf(config.limits());
        }
    }

    /**
     * A clock that also jumps back, through the twins directly (a cache would expire entries by the
     * clock that went back) and the Redis scripts. Every permit takes at least 10 s to come back, far
     * longer than the test runs, so Redis expires nothing that matters.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void bucketsDecideAlikeWhenTheClockJumpsBack(long seed) {
        Random random = new Random(seed * 7919);
        RateLimiterConfig config = randomConfig(random, new long[] { 60, 600, 3_600, 86_400 }, 10, seed % 2 == 0);
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + random.nextInt(1_000_000_000));
        String prefix = TestRedisSupport.uniquePrefix();
        List<RateLimiter> scripts = new ArrayList<>();
        List<Twin> twins = new ArrayList<>();
        for (Algorithm algorithm : BUCKETS) {
            RateLimiterConfig each = withAlgorithm(config, algorithm);
            scripts.add(Backend.REDIS.factory(clock, prefix).create("back", each));
            twins.add(new Twin(each));
        }
        Outcomes outcomes = new Outcomes();
        int backwards = 0;
        for (int step = 0; step < 400; step++) {
            long delta = randomStep(random, config, step);
            if (random.nextInt(4) == 0) {
                delta = -random.nextLong(3 * slice(config, 0) + 1);
                backwards++;
            }
            clock.advanceMicros(delta);
            String key = KEYS[random.nextInt(KEYS.length)];
            long cost = randomCost(random, config);
            long now = clock.nowMicros();
            String where = "seed " + seed + ", " + config + ", step " + step + " at " + now + " us (" + delta + "), key " + key
                    + ", cost " + cost;
            // The three implementations against each other. The reference models are left out here:
            // after the clock goes back, models and implementations forget a key at different moments
            // (the known limitation behind the disabled test in BucketAlgorithmsTests); AlgorithmPropertyTests
            // never steps back across a key's reset, where both agree.
            Decision expected = twins.get(0).tryAcquire(key, cost, now);
            for (Twin twin : twins.subList(1, twins.size())) {
                assertEquals(expected, twin.tryAcquire(key, cost, now), twin + ", " + where);
            }
            for (RateLimiter script : scripts) {
                assertEquals(expected, script.tryAcquire(key, cost), script + ", " + where);
            }
            outcomes.count(expected);
        }
        assertThat(backwards).isPositive();
        outcomes.check(config);
    }

    /** The reference models of leaky bucket and GCRA, which must agree with each other too. */
    private static final class Models {

        final LeakyBucketModel leaky;

        final GcraModel gcra;

        Models(RateLimiterConfig config) {
            this.leaky = new LeakyBucketModel(config);
            this.gcra = new GcraModel(config);
        }
    }

    /** A twin with its states in a plain map: nothing expires, whatever the clock does. */
    private static final class Twin {

        final RateLimiterConfig config;

        final LocalAlgorithm<Object> algorithm;

        final Map<String, Object> states = new HashMap<>();

        @SuppressWarnings("unchecked")
        Twin(RateLimiterConfig config) {
            this.config = config;
            this.algorithm = (LocalAlgorithm<Object>) LocalAlgorithm.of(config.algorithm());
        }

        Decision tryAcquire(String key, long permits, long now) {
            LocalAlgorithm.Step<Object> step = algorithm.apply(states.get(key), config, now, permits);
            if (step.changed()) {
                states.put(key, step.state());
            }
            return step.decision();
        }

        @Override
        public String toString() {
            return "twin " + config.algorithm();
        }
    }

    /**
     * 1 to 3 limits on consecutive windows of {@code windowSeconds}, each permit taking at least
     * {@code minSecondsPerPermit} to come back. A longer limit's sustained rate is 20 to 60% of the
     * shorter one's and its burst a quarter of its limit to all of it, so each of them gets to
     * bind; the shortest limit's burst is half to twice its limit.
     */
    static RateLimiterConfig randomConfig(Random random, long[] windowSeconds, long minSecondsPerPermit, boolean maxWait) {
        int n = 1 + random.nextInt(3);
        int first = random.nextInt(windowSeconds.length - n + 1);
        List<LimitSpec> limits = new ArrayList<>();
        long previous = 0;
        for (int i = first; i < first + n; i++) {
            long window = windowSeconds[i];
            long limit = (previous == 0) ? 1 + random.nextLong(Math.min(4, window / minSecondsPerPermit))
                    : Math.max(previous + 1, Math.round(previous * window / windowSeconds[i - 1] * (0.2 + 0.4 * random.nextDouble())));
            // A longer limit with a burst of its whole limit would take too long to exhaust.
            long burst = Math.max(1, limit * (previous == 0 ? 2 + random.nextInt(7) : 1 + random.nextInt(4)) / 4);
            limits.add(new LimitSpec(limit, Duration.ofSeconds(window), burst));
            previous = limit;
        }
        RateLimiterConfig config = new RateLimiterConfig(Algorithm.TOKEN_BUCKET, limits, RateLimiterConfig.DEFAULT_SUB_WINDOWS,
                Duration.ZERO);
        if (maxWait) {
            // One to three permits of the first limit: long enough that callers do wait.
            long wait = slice(config, 0) * (1 + random.nextInt(3)) + random.nextInt(1_000_000);
            config = config.withMaxWait(micros(Math.min(wait, RateLimiterConfig.MAX_WAIT.toNanos() / 1_000)));
        }
        return config;
    }

    static RateLimiterConfig withAlgorithm(RateLimiterConfig config, Algorithm algorithm) {
        return new RateLimiterConfig(algorithm, config.limits(), config.subWindows(), config.maxWait());
    }

    /** Time one permit of limit {@code index} takes to come back, rounded up. */
    static long slice(RateLimiterConfig config, int index) {
        LimitSpec limit = config.limits().get(index);
        return ceilDiv(limit.windowMicros(), limit.limit());
    }

    /**
     * Often nothing (several requests at once); mostly up to a permit's time of one limit, which one
     * changing every 50 steps so each limit gets its turn to bind; sometimes much longer.
     */
    static long randomStep(Random random, RateLimiterConfig config, int step) {
        int kind = random.nextInt(80);
        if (kind < 20) {
            return 0;
        }
        if (kind < 78) {
            return random.nextLong(slice(config, (step / 50) % config.limits().size()) + 1);
        }
        if (kind < 79) {
            return random.nextLong(config.limits().get(config.limits().size() - 1).windowMicros() + 1);
        }
        return random.nextLong(2 * 86_400 * SECOND);
    }

    /** Mostly within every burst; now and then up to beyond the largest one. */
    static long randomCost(Random random, RateLimiterConfig config) {
        if (random.nextInt(8) > 0) {
            long smallest = config.limits().stream().mapToLong(LimitSpec::burst).min().getAsLong();
            return 1 + random.nextLong(Math.min(3, smallest));
        }
        long largest = config.limits().stream().mapToLong(LimitSpec::burst).max().getAsLong();
        return 1 + random.nextLong(largest + 2);
    }

    /** What a history produced: a history that never rejects, or never waits when it may, proves little. */
    static final class Outcomes {

        int allowed;

        int waited;

        int rejected;

        int never;

        final Set<LimitSpec> violated = new HashSet<>();

        void count(Decision decision) {
            if (decision.allowed()) {
                if (decision.waitFor().isZero()) {
                    allowed++;
                }
                else {
                    waited++;
                }
            }
            else if (decision.neverAllowed()) {
                never++;
            }
            else {
                rejected++;
                violated.add(decision.violatedLimit());
            }
        }

        void check(RateLimiterConfig config) {
            assertThat(allowed).as("allowed at once").isGreaterThan(10);
            assertThat(rejected).as("rejected").isGreaterThan(10);
            assertThat(never).as("never allowed").isPositive();
            if (config.maxWait().isZero()) {
                assertThat(waited).as("allowed after a wait").isZero();
            }
            else {
                assertThat(waited).as("allowed after a wait").isPositive();
            }
        }
    }

    private static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }

    private static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }
}
