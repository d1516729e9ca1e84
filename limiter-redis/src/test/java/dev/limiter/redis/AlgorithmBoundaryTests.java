package dev.limiter.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.property.Agreement;
import dev.limiter.property.Op;
import dev.limiter.property.Scenario;
import dev.limiter.property.ScenarioGenerator;
import dev.limiter.test.RedisTest;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hand-picked histories at the edges of every algorithm, where rounding and boundaries decide: the
 * reference model, the in-memory twin and the Redis script must give identical decisions. Each
 * history also runs on a limiter with a second, longer limit, so the combination of limits is at
 * the edge too.
 */
@RedisTest
class AlgorithmBoundaryTests {

    static final Duration WINDOW = Duration.ofSeconds(10);

    static final Duration THIRTY_DAYS = Duration.ofDays(30);

    static final String KEY = "k";

    /** The first multiple of {@code window} at or after {@code time}. */
    static long edgeAfter(long time, Duration window) {
        long micros = window.toNanos() / 1_000;
        return Math.floorDiv(time + micros - 1, micros) * micros;
    }

    static void check(String name, RateLimiterConfig config, long start, Op... ops) {
        Agreement.check(new Scenario(name, config, start, List.of(ops)), ComparedImplementations.all());
    }

    static RateLimiterConfig config(Algorithm algorithm, LimitSpec... limits) {
        return RateLimiterConfig.of(algorithm, limits);
    }

    /** Exhausts the limit just before a window edge, then asks 1 us before, at, and 1 us after each moment it names. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void exactlyAtTheWindowEdge(Algorithm algorithm) {
        for (RateLimiterConfig config : List.of(config(algorithm, LimitSpec.of(5, WINDOW)),
                config(algorithm, LimitSpec.of(2, Duration.ofSeconds(1)), LimitSpec.of(5, WINDOW)))) {
            long edge = edgeAfter(ScenarioGenerator.EPOCH_ALIGNED_START + 1, WINDOW);
            // Last microsecond of a window: the state is written with a reset-after of 1 us.
            check("exhausted 1 us before the edge of " + config, config, edge - 1,
                    Op.step(0, KEY, 5), Op.step(0, KEY, 1), Op.step(1, KEY, 1), Op.step(0, KEY, 5), Op.step(0, KEY, 1),
                    Op.afterRetry(-1, KEY, 1), Op.afterRetry(0, KEY, 1), Op.afterRetry(0, KEY, 1), Op.afterReset(-1, KEY, 1),
                    Op.afterReset(0, KEY, 1), Op.afterReset(1, KEY, 5));
            // Exactly at the edge: a new window begins.
            check("exhausted at the edge of " + config, config, edge,
                    Op.step(0, KEY, 1), Op.step(0, KEY, 4), Op.step(0, KEY, 1), Op.afterRetry(-1, KEY, 1), Op.afterRetry(0, KEY, 1),
                    Op.afterRetry(1, KEY, 2), Op.afterReset(-1, KEY, 3), Op.afterReset(0, KEY, 5));
            // Across sub-window and emission-interval edges, one microsecond at a time.
            List<Op> ops = new ArrayList<>();
            ops.add(Op.step(0, KEY, 3));
            for (int i = 0; i < 12; i++) {
                ops.add(Op.afterRetry(-1, KEY, 1));
                ops.add(Op.step(1, KEY, 1));
                ops.add(Op.step(0, KEY, 2));
            }
            check("one microsecond at a time across edges of " + config, config, edge - 1_234_567, ops.toArray(Op[]::new));
        }
    }

    /** A clock that goes back by one microsecond across an edge stands still: nothing taken after the edge is forgotten. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void aClockGoingBackAcrossTheWindowEdge(Algorithm algorithm) {
        RateLimiterConfig config = config(algorithm, LimitSpec.of(1, WINDOW));
        long edge = edgeAfter(ScenarioGenerator.EPOCH_ALIGNED_START + 1, WINDOW);
        check("back across the edge of " + config, config, edge - 2_000_000,
                Op.step(0, KEY, 1), Op.step(2_000_000, KEY, 1), Op.step(-1, KEY, 1), Op.step(1, KEY, 1));
    }

    /** After idling far longer than any window or refill, a key is as new; on the way, the reset moment to the microsecond. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void afterLongIdleness(Algorithm algorithm) {
        long year = Duration.ofDays(366).toNanos() / 1_000;
        for (RateLimiterConfig config : List.of(config(algorithm, LimitSpec.of(7, WINDOW)),
                config(algorithm, LimitSpec.of(7, WINDOW), LimitSpec.of(1_000, Duration.ofDays(366))))) {
            check("long idleness, " + config, config, ScenarioGenerator.EPOCH_ALIGNED_START + 777,
                    Op.step(0, KEY, 7), Op.step(0, KEY, 1), Op.step(year, KEY, 7), Op.step(0, KEY, 1), Op.afterReset(-1, KEY, 1),
                    Op.afterReset(0, KEY, 7), Op.step(10 * year, KEY, 3), Op.step(10 * year + 1, KEY, 7));
        }
    }

    /** Costs at, just above, and far above the capacity, up to the largest long: never allowed, nothing taken. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void hugeCosts(Algorithm algorithm) {
        for (LimitSpec spec : List.of(LimitSpec.of(5, WINDOW), LimitSpec.of(LimitSpec.MAX_LIMIT, THIRTY_DAYS))) {
            RateLimiterConfig config = config(algorithm, spec);
            long capacity = spec.limit();
            check("huge costs, " + config, config, ScenarioGenerator.EPOCH_ALIGNED_START + 1_234_567,
                    Op.step(0, KEY, capacity + 1), Op.step(0, KEY, 1L << 31), Op.step(0, KEY, (1L << 53) + 1), Op.step(0, KEY, Long.MAX_VALUE),
                    Op.step(0, KEY, capacity), Op.step(0, KEY, capacity), Op.step(0, KEY, Long.MAX_VALUE), Op.afterRetry(0, KEY, capacity),
                    Op.step(0, KEY, capacity - 1 > 0 ? capacity - 1 : 1));
        }
    }

    /** One permit per 30 days: retry-after of a month, to the microsecond. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void tinyRate(Algorithm algorithm) {
        List<RateLimiterConfig> configs = new ArrayList<>(List.of(config(algorithm, LimitSpec.of(1, THIRTY_DAYS))));
        if (algorithm.isBucket()) {
            // The largest burst that refills within 366 days at this rate.
            configs.add(config(algorithm, LimitSpec.of(1, THIRTY_DAYS).withBurst(12)));
        }
        for (RateLimiterConfig config : configs) {
            check("tiny rate, " + config, config, ScenarioGenerator.EPOCH_ALIGNED_START + 3,
                    Op.step(0, KEY, 1), Op.step(0, KEY, 1), Op.afterRetry(-1, KEY, 1), Op.afterRetry(0, KEY, 1), Op.step(1, KEY, 1),
                    Op.step(0, KEY, 12), Op.afterReset(-1, KEY, 1), Op.afterReset(0, KEY, 1), Op.step(THIRTY_DAYS.toNanos() / 1_000 / 7, KEY, 2));
        }
    }

    /** 2^31-1 permits per 30 days: about 1.2 us per permit, where every rounding shows. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void hugeRate(Algorithm algorithm) {
        long max = LimitSpec.MAX_LIMIT;
        for (RateLimiterConfig config : List.of(config(algorithm, LimitSpec.of(max, THIRTY_DAYS)),
                config(algorithm, LimitSpec.of(1_000_000_007, Duration.ofDays(1)), LimitSpec.of(max, THIRTY_DAYS)))) {
            List<Op> ops = new ArrayList<>(List.of(Op.step(0, KEY, max), Op.step(0, KEY, 1), Op.afterRetry(-1, KEY, 1),
                    Op.afterRetry(0, KEY, 1), Op.step(0, KEY, 3), Op.afterRetry(0, KEY, 3), Op.step(1, KEY, 1), Op.step(7, KEY, 5)));
            for (int i = 0; i < 10; i++) {
                ops.add(Op.step(1, KEY, 1));
            }
            ops.add(Op.step(Duration.ofDays(1).toNanos() / 1_000 - 1, KEY, 1_000_000_000));
            ops.add(Op.step(1, KEY, 1_000_000_007));
            ops.add(Op.afterReset(-1, KEY, max));
            ops.add(Op.afterReset(0, KEY, max));
            check("huge rate, " + config, config, ScenarioGenerator.EPOCH_ALIGNED_START + 5, ops.toArray(Op[]::new));
        }
    }

    /** Buckets with max-wait: callers borrow up to max-wait, exactly; one more microsecond of wait is a rejection. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void waitingUpToMaxWait(Algorithm algorithm) {
        // 5 per 10 s: a permit every 2 s; max-wait 4 s lets two callers wait after the burst, the third is rejected.
        for (RateLimiterConfig config : List.of(config(algorithm, LimitSpec.of(5, WINDOW)).withMaxWait(Duration.ofSeconds(4)),
                config(algorithm, LimitSpec.of(5, WINDOW).withBurst(2), LimitSpec.of(7, Duration.ofSeconds(30)).withBurst(9))
                    .withMaxWait(Duration.ofMillis(4_000).minusNanos(1_000)),
                config(algorithm, LimitSpec.of(3, Duration.ofSeconds(7))).withMaxWait(Duration.ofNanos(1_000)))) {
            check("max-wait, " + config, config, ScenarioGenerator.EPOCH_ALIGNED_START + 11,
                    Op.step(0, KEY, 5), Op.step(0, KEY, 1), Op.step(0, KEY, 1), Op.step(0, KEY, 1), Op.step(0, KEY, 2),
                    Op.afterRetry(-1, KEY, 1), Op.afterRetry(0, KEY, 1), Op.step(1, KEY, 1), Op.step(0, KEY, 6),
                    Op.afterReset(-1, KEY, 1), Op.afterReset(0, KEY, 5), Op.step(0, KEY, 1), Op.step(0, KEY, 1));
        }
    }
}
