package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** The decision every script reply and twin becomes: its durations are the microseconds it was given, exactly. */
class DecisionOfTests {

    private static final RateLimiterConfig CONFIG = RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, LimitSpec.of(10, Duration.ofSeconds(1)));

    @Test
    void microsecondsBecomeTheSameDurationsAsByTheirUnit() {
        SplittableRandom random = new SplittableRandom(17);
        long[] edges = { 0, 1, 999_999, 1_000_000, 1_000_001, Long.MAX_VALUE / 1_000, 366L * 86_400 * 1_000_000 };
        for (int i = 0; i < 100_000; i++) {
            long micros = (i < edges.length) ? edges[i] : random.nextLong(1L << random.nextInt(1, 60));
            assertThat(RateLimiterConfig.micros(micros)).as("%d us", micros).isEqualTo(Duration.of(micros, ChronoUnit.MICROS));
            assertThat(RateLimiterConfig.micros(-micros)).as("%d us", -micros).isEqualTo(Duration.of(-micros, ChronoUnit.MICROS));
        }
    }

    @Test
    void aDecisionKeepsEachResetItIsGiven() {
        Decision one = Decision.of(CONFIG, 0, 1, 0, 1_500_000, 100_000, 1, 0, 1_500_000, DecisionSource.MEMORY);
        assertThat(one.resetAfter()).isEqualTo(Duration.ofMillis(1_500)).isEqualTo(one.limitResetAfter());
        assertThat(one.retryAfter()).isEqualTo(Duration.ofMillis(100));

        Decision two = Decision.of(CONFIG, 1, 1, 3, 2_000_000, 0, 0, 0, 700_000, DecisionSource.MEMORY);
        assertThat(two.resetAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(two.limitResetAfter()).isEqualTo(Duration.ofMillis(700));
        assertThat(two.retryAfter()).isZero();
    }
}
