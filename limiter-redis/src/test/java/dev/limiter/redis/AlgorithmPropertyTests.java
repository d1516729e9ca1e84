package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;

import dev.limiter.Algorithm;
import dev.limiter.property.Agreement.Tally;
import dev.limiter.property.Agreement;
import dev.limiter.property.Scenario;
import dev.limiter.property.ScenarioGenerator;
import dev.limiter.property.Seeds;
import dev.limiter.test.RedisTest;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * For every algorithm, the Redis script, the in-memory twin and the reference model written from
 * docs/algorithms.md give identical decisions, request by request, on random scenarios. A failure
 * names its seed; {@code -Dlimiter.property.seed=<n>} replays it alone.
 */
@RedisTest
class AlgorithmPropertyTests {

    static final int SEEDS = 30;

    static final int REQUESTS = 200;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void scriptTwinAndModelDecideAlike(Algorithm algorithm) {
        List<Scenario> scenarios = LongStream.of(Seeds.first(SEEDS)).mapToObj(seed -> ScenarioGenerator.generate(seed, algorithm, REQUESTS))
            .toList();
        Tally tally = Agreement.checkAll(scenarios, ComparedImplementations.all());
        if (System.getProperty(Seeds.PROPERTY) == null) {
            // The scenarios must reach every kind of decision, or agreeing proves little.
            assertThat(tally.allowed()).as("allowed in %s", tally).isGreaterThan(SEEDS * REQUESTS / 5);
            assertThat(tally.rejected()).as("rejected in %s", tally).isGreaterThan(SEEDS * REQUESTS / 10);
            assertThat(tally.never()).as("never allowed in %s", tally).isGreaterThan(SEEDS);
            if (algorithm.isBucket()) {
                assertThat(tally.waited()).as("waited in %s", tally).isGreaterThan(SEEDS);
            }
        }
    }
}
