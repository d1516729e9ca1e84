package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.limiter.model.SlidingLogModel;
import dev.limiter.model.SlidingWindowModel;

/**
 * Random histories on the Lua script, its in-memory twin and the reference model of docs/algorithms.md:
 * all three must give the very same Decision at every step. Each seed draws its own configuration
 * (1 to 3 limits, a number of sub-windows) and a history of time steps (some backwards, some long
 * idle spans), keys and costs (some above every capacity); a failure names the seed and step.
 */
class SlidingAgreementTest {

    static final String[] KEYS = { "alice", "bob", "carol" };

    static final int[] SUB_WINDOWS = { 1, 2, 3, 5, 7, 10, 16 };

    static Stream<Arguments> seeds() {
        List<Arguments> cases = new ArrayList<>();
        for (Algorithm algorithm : List.of(Algorithm.SLIDING_WINDOW, Algorithm.SLIDING_LOG)) {
            LongStream.rangeClosed(1, 12).forEach(seed -> cases.add(Arguments.of(algorithm, seed)));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("seeds")
    void scriptTwinAndModelGiveEqualDecisions(Algorithm algorithm, long seed) {
        Random random = new Random(seed);
        RateLimiterConfig config = randomConfig(algorithm, random);
        BiFunction<String, Long, Decision>[] model = new BiFunction[1];
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + random.nextInt(10_000_000));
        if (algorithm == Algorithm.SLIDING_WINDOW) {
            SlidingWindowModel m = new SlidingWindowModel(config.limits(), config.subWindows());
            model[0] = (key, cost) -> m.tryAcquire(key, clock.nowMicros(), cost);
        }
        else {
            SlidingLogModel m = new SlidingLogModel(config.limits());
            model[0] = (key, cost) -> m.tryAcquire(key, clock.nowMicros(), cost);
        }
        RateLimiter redis = Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("agree", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("agree", config);

        long shortest = config.limits().get(0).windowMicros();
        long maxCapacity = config.limits().get(config.limits().size() - 1).limit();
        Map<String, Long> idleAt = new HashMap<>();
        int[] outcomes = new int[3];
        for (int step = 0; step < 400; step++) {
            int kind = random.nextInt(100);
            if (kind < 4) {
                // The clock goes back, but not to before a key became idle: an idle key has expired (Redis
                // TTL, Caffeine expiry) and nothing brings it back, while the model would count it again.
                long now = clock.nowMicros();
                long back = now - random.nextInt((int) Math.min(shortest, 3_000_000));
                for (long idle : idleAt.values()) {
                    if (idle <= now) {
                        back = Math.max(back, idle);
                    }
                }
                clock.set(back);
            }
            else if (kind < 6) {
                clock.advance(Duration.ofHours(1 + random.nextInt(48))); // long idleness
            }
            else {
                // Mostly within a sub-window or two of the shortest window, so limits fill up.
                clock.advanceMicros((long) (random.nextDouble() * random.nextDouble() * shortest / 2));
            }
            String key = KEYS[random.nextInt(KEYS.length)];
            long cost = (random.nextInt(40) == 0) ? maxCapacity + 1 : 1 + random.nextInt(random.nextBoolean() ? 2 : 4);
            Decision expected = model[0].apply(key, cost);
            String where = algorithm + " " + config + " seed " + seed + " step " + step + " at " + clock.nowMicros() + " us, key " + key
                    + ", cost " + cost;
            assertEquals(expected, redis.tryAcquire(key, cost), "script, " + where);
            assertEquals(expected, memory.tryAcquire(key, cost), "twin, " + where);
            idleAt.put(key, clock.nowMicros() + expected.resetAfter().toNanos() / 1_000);
            outcomes[expected.allowed() ? 0 : expected.neverAllowed() ? 2 : 1]++;
        }
        // Each kind of outcome must occur, or the comparison proves little.
        assertThat(outcomes[0]).as("allowed").isGreaterThan(40);
        assertThat(outcomes[1]).as("rejected").isGreaterThan(40);
        assertThat(outcomes[2]).as("never allowed").isPositive();
    }

    /**
     * 1 to 3 limits whose windows are whole multiples of the sub-window count; sub-windows of at
     * least half a second, so that keys Redis expires in real time are idle in virtual time too.
     */
    static RateLimiterConfig randomConfig(Algorithm algorithm, Random random) {
        int subWindows = SUB_WINDOWS[random.nextInt(SUB_WINDOWS.length)];
        int count = 1 + random.nextInt(3);
        List<LimitSpec> limits = new ArrayList<>();
        long window = 0;
        long limit = 0;
        for (int i = 0; i < count; i++) {
            long subWindow = 500_000 + random.nextInt(2_500_000);
            window += subWindows * subWindow * (1 + random.nextInt(i == 0 ? 2 : 20));
            limit += 1 + random.nextInt(i == 0 ? 6 : 25);
            limits.add(LimitSpec.of(limit, RateLimiterConfig.micros(window)));
        }
        return new RateLimiterConfig(algorithm, limits, subWindows, Duration.ZERO);
    }
}
