package dev.limiter.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.algorithm.Model;

import org.junit.jupiter.api.Test;

/** The harness itself: it finds a planted bug, shrinks it to the few requests that show it, and reports them. */
class AgreementTests {

    static final Implementation MODEL = new Implementation("model", config -> Model.of(config)::tryAcquire);

    /** The model, except that a rejected request is told to come back one microsecond too early. */
    static final Implementation EARLY_RETRY = new Implementation("early", config -> {
        Model model = Model.of(config);
        return (key, permits, now) -> {
            Decision d = model.tryAcquire(key, permits, now);
            if (d.rejected() && !d.neverAllowed()) {
                return new Decision(false, d.limit(), d.remaining(), d.resetAfter(), d.retryAfter().minusNanos(1_000), d.waitFor(),
                        d.violatedLimit());
            }
            return d;
        };
    });

    @Test
    void aPlantedBugIsShrunkToTheRequestsThatShowIt() {
        Scenario scenario = ScenarioGenerator.generate(3, Algorithm.TOKEN_BUCKET, 200);
        assertThatThrownBy(() -> Agreement.check(scenario, List.of(MODEL, EARLY_RETRY)))
            .isInstanceOf(AssertionError.class)
            .satisfies(error -> {
                String report = error.getMessage();
                assertThat(report).contains("seed 3 (token-bucket)", "config: " + scenario.config(), "model:", "early:", "as Java: List.of(");
                // Exhaust the bucket, then be rejected: at most burst + 1 requests, usually two.
                int shown = (int) report.lines().filter(line -> line.matches("\\s+#\\d+ .*")).count();
                assertThat(shown).as(report).isBetween(1, 3);
            });
    }

    @Test
    void agreeingImplementationsPassAndTallyWhatTheyDecided() {
        Scenario scenario = ScenarioGenerator.generate(5, Algorithm.FIXED_WINDOW, 300);
        Agreement.Tally tally = Agreement.check(scenario, List.of(MODEL, MODEL));
        assertThat(tally.requests()).isEqualTo(300);
        assertThat(tally.allowed() + tally.rejected()).isEqualTo(300);
    }

    @Test
    void anExceptionIsAnAnswerThatDiffers() {
        Implementation failing = new Implementation("failing", config -> (key, permits, now) -> {
            throw new UnsupportedOperationException("not implemented yet");
        });
        assertThatThrownBy(() -> Agreement.check(ScenarioGenerator.generate(1, Algorithm.GCRA, 50), List.of(MODEL, failing)))
            .hasMessageContaining("threw UnsupportedOperationException: not implemented yet")
            .hasMessageContaining("shrunk to 1 request(s)");
    }

    @Test
    void aSeedAlwaysGivesTheSameScenario() {
        for (Algorithm algorithm : Algorithm.values()) {
            assertThat(ScenarioGenerator.generate(42, algorithm, 100)).isEqualTo(ScenarioGenerator.generate(42, algorithm, 100));
        }
    }

    @Test
    void generatedConfigurationsVary() {
        for (Algorithm algorithm : Algorithm.values()) {
            List<RateLimiterConfig> configs = java.util.stream.LongStream.rangeClosed(1, 200)
                .mapToObj(seed -> ScenarioGenerator.config(seed, algorithm))
                .toList();
            assertThat(configs).extracting(c -> c.limits().size()).contains(1, 2, 3);
            assertThat(configs).flatExtracting(RateLimiterConfig::limits).extracting(LimitSpec::limit).contains(1L);
            assertThat(configs).flatExtracting(RateLimiterConfig::limits)
                .anySatisfy(limit -> assertThat(limit.window()).isLessThan(Duration.ofMillis(1)))
                .anySatisfy(limit -> assertThat(limit.window()).isGreaterThan(Duration.ofDays(1)));
            if (algorithm.isBucket()) {
                assertThat(configs).anySatisfy(c -> assertThat(c.maxWait()).isPositive());
                assertThat(configs).flatExtracting(RateLimiterConfig::limits).anySatisfy(l -> assertThat(l.burst()).isGreaterThan(l.limit()));
                assertThat(configs).flatExtracting(RateLimiterConfig::limits).anySatisfy(l -> assertThat(l.burst()).isLessThan(l.limit()));
            }
            if (algorithm == Algorithm.SLIDING_WINDOW) {
                assertThat(configs).extracting(RateLimiterConfig::subWindows).contains(1, 10, 60);
            }
        }
    }
}
