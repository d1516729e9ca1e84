package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The builder gives the configuration the constructor would, and checks it the same way. */
class RateLimiterConfigBuilderTests {

    private static final LimitSpec PER_SECOND = LimitSpec.of(10, Duration.ofSeconds(1));

    private static final LimitSpec PER_HOUR = LimitSpec.of(1_000, Duration.ofHours(1));

    @Test
    void buildsWhatTheConstructorBuilds() {
        RateLimiterConfig built = RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET)
            .limit(PER_HOUR)
            .limit(10, Duration.ofSeconds(1))
            .maxWait(Duration.ofMillis(200))
            .onRedisFailure(FailurePolicy.DENY)
            .build();
        assertThat(built).isEqualTo(new RateLimiterConfig(Algorithm.TOKEN_BUCKET, List.of(PER_SECOND, PER_HOUR),
                RateLimiterConfig.DEFAULT_SUB_WINDOWS, Duration.ofMillis(200), FailurePolicy.DENY));
        assertThat(built.limits()).as("sorted by window, whatever the order of the calls").containsExactly(PER_SECOND, PER_HOUR);
    }

    @Test
    void defaultsAreThoseOfOf() {
        assertThat(RateLimiterConfig.builder(Algorithm.SLIDING_WINDOW).limit(PER_SECOND).build())
            .isEqualTo(RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, PER_SECOND));
        assertThat(RateLimiterConfig.builder(Algorithm.SLIDING_WINDOW).limit(PER_SECOND).subWindows(4).build().subWindows()).isEqualTo(4);
    }

    @Test
    void buildChecksTheValuesTogether() {
        assertThatThrownBy(() -> RateLimiterConfig.builder(Algorithm.GCRA).build()).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("between 1 and " + RateLimiterConfig.MAX_LIMITS + " limits");
        assertThatThrownBy(() -> RateLimiterConfig.builder(Algorithm.FIXED_WINDOW).limit(PER_SECOND).maxWait(Duration.ofSeconds(1)).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("max-wait applies to token-bucket, leaky-bucket and gcra");
        assertThatThrownBy(() -> RateLimiterConfig.builder(Algorithm.FIXED_WINDOW).limit(PER_HOUR).limit(2_000, Duration.ofSeconds(1)).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("a shorter window needs a smaller limit");
    }

    @Test
    void leaseIsOffByDefaultAndChecked() {
        assertThat(RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, PER_SECOND).lease()).isNull();
        RateLimiterConfig leasing = RateLimiterConfig.builder(Algorithm.GCRA).limit(PER_SECOND).lease(5, Duration.ofMillis(100)).build();
        assertThat(leasing.lease()).isEqualTo(new RateLimiterConfig.Lease(5, Duration.ofMillis(100)));
        assertThat(leasing.toString()).endsWith("lease 5 per PT0.1S");
        assertThat(leasing.keepsStateOf(leasing.withLease(null))).as("leased permits are taken like any other").isTrue();
        assertThatThrownBy(() -> RateLimiterConfig.builder(Algorithm.SLIDING_LOG).limit(PER_SECOND).lease(5, Duration.ofSeconds(1)).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("lease applies to token-bucket, leaky-bucket and gcra, not to sliding-log");
        assertThatThrownBy(() -> new RateLimiterConfig.Lease(0, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("lease permits must be between 1");
        assertThatThrownBy(() -> new RateLimiterConfig.Lease(5, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("lease ttl must be whole microseconds above 0");
        assertThatThrownBy(() -> new RateLimiterConfig.Lease(5, Duration.ofNanos(1_500))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("lease ttl");
    }

}
