package dev.limiter.internal.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.property.Agreement.Tally;
import dev.limiter.property.Agreement;
import dev.limiter.property.Implementation;
import dev.limiter.property.Op;
import dev.limiter.property.Scenario;
import dev.limiter.property.ScenarioGenerator;
import dev.limiter.property.Seeds;

import org.junit.jupiter.api.Test;

/**
 * The models check each other where docs/algorithms.md says that different algorithms decide alike,
 * so a slip in one model shows without Redis: token bucket, leaky bucket and GCRA are "three views
 * of the same rule"; a sliding window of one sub-window is a fixed window; a sliding window of
 * one-microsecond sub-windows is a sliding log.
 */
class ModelConsistencyTests {

    static final int SEEDS = 200;

    static final int REQUESTS = 300;

    @Test
    void bucketsAreThreeViewsOfTheSameRule() {
        Tally tally = Tally.NONE;
        for (long seed : Seeds.first(SEEDS)) {
            Scenario scenario = forwardOnly(ScenarioGenerator.generate(seed, Algorithm.TOKEN_BUCKET, REQUESTS));
            tally = tally.plus(Agreement.check(scenario, List.of(as("token-bucket", Algorithm.TOKEN_BUCKET),
                    as("leaky-bucket", Algorithm.LEAKY_BUCKET), as("gcra", Algorithm.GCRA))));
        }
        assertThat(tally.rejected()).as("%s", tally).isGreaterThan(SEEDS * REQUESTS / 10);
        assertThat(tally.waited()).as("%s", tally).isGreaterThan(SEEDS);
    }

    @Test
    void aSlidingWindowOfOneSubWindowIsAFixedWindow() {
        Tally tally = Tally.NONE;
        for (long seed : Seeds.first(SEEDS)) {
            Scenario scenario = ScenarioGenerator.generate(seed, Algorithm.FIXED_WINDOW, REQUESTS);
            tally = tally.plus(Agreement.check(scenario, List.of(as("fixed-window", Algorithm.FIXED_WINDOW),
                    new Implementation("sliding-window of 1", config -> Model.of(withAlgorithm(config, Algorithm.SLIDING_WINDOW).withSubWindows(1))::tryAcquire))));
        }
        assertThat(tally.rejected()).as("%s", tally).isGreaterThan(SEEDS * REQUESTS / 10);
    }

    @Test
    void aSlidingWindowOfOneMicrosecondSubWindowsIsASlidingLog() {
        Tally tally = Tally.NONE;
        for (long seed : Seeds.first(SEEDS)) {
            // One limit: sub-windows of 1 us need as many sub-windows as the window has microseconds.
            Random random = new Random(seed);
            long window = 1 + random.nextInt(20_000);
            LimitSpec limit = LimitSpec.of(1 + random.nextInt(30), Duration.of(window, ChronoUnit.MICROS));
            Scenario scenario = ScenarioGenerator.generate(seed, RateLimiterConfig.of(Algorithm.SLIDING_LOG, limit), REQUESTS);
            tally = tally.plus(Agreement.check(scenario, List.of(as("sliding-log", Algorithm.SLIDING_LOG),
                    new Implementation("sliding-window of 1us", config -> Model.of(withAlgorithm(config, Algorithm.SLIDING_WINDOW).withSubWindows((int) window))::tryAcquire))));
        }
        assertThat(tally.rejected()).as("%s", tally).isGreaterThan(SEEDS * REQUESTS / 10);
    }

    /** The model of {@code algorithm} with the limits and options of whatever configuration the scenario has. */
    static Implementation as(String name, Algorithm algorithm) {
        return new Implementation(name, config -> Model.of(withAlgorithm(config, algorithm))::tryAcquire);
    }

    static RateLimiterConfig withAlgorithm(RateLimiterConfig config, Algorithm algorithm) {
        return new RateLimiterConfig(algorithm, config.limits(), algorithm == Algorithm.SLIDING_WINDOW ? 1 : config.subWindows(), config.maxWait());
    }

    /**
     * The scenario with its backward steps made zero: for a clock that goes back, the bucket
     * formulas of the spec differ (token and leaky bucket stand still at {@code t₀}, GCRA reads
     * {@code t} itself).
     */
    static Scenario forwardOnly(Scenario scenario) {
        UnaryOperator<Op> forward = op -> (op.timing() == Op.Timing.STEP && op.micros() < 0) ? Op.step(0, op.key(), op.permits()) : op;
        return new Scenario(scenario.name(), scenario.config(), scenario.startMicros(), scenario.ops().stream().map(forward).toList());
    }
}
