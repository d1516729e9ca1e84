package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;

import org.junit.jupiter.api.Test;

/** The script call's arguments and reply as lib.lua documents them; the Redis-backed tests check that the scripts agree. */
class ScriptCodecTest {

    private static final RateLimiterConfig TWO_LIMITS = RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET)
        .limit(LimitSpec.of(10, Duration.ofSeconds(1)).withBurst(20))
        .limit(1_000, Duration.ofHours(1))
        .maxWait(Duration.ofMillis(250))
        .build();

    @Test
    void argumentsAreTimePermitsMaxWaitParameterThenEachLimit() {
        ScriptCodec codec = ScriptCodec.of(TWO_LIMITS);
        assertThat(codec.arguments(null, 3)).containsExactly("", "3", "250000", "", "10", "1000000", "20", "1000", "3600000000", "1000");
        assertThat(codec.arguments(1_700_000_000_000_000L, 0)).startsWith("1700000000000000", "0");
        assertThat(ScriptCodec.of(RateLimiterConfig.of(Algorithm.SLIDING_WINDOW, LimitSpec.of(5, Duration.ofSeconds(10))).withSubWindows(5))
            .arguments(null, 1)).containsExactly("", "1", "0", "5", "5", "10000000", "5");
    }

    @Test
    void replyBecomesARedisDecision() {
        // allowed, reported limit 2, remaining 7, reset 2 s, retry 0, violated none, wait 0, the reported limit's reset 1 s
        Decision decision = ScriptCodec.of(TWO_LIMITS).decision(List.of(1L, 2L, 7L, 2_000_000L, 0L, 0L, 0L, 1_000_000L));
        assertThat(decision.allowed()).isTrue();
        assertThat(decision.limit()).isEqualTo(1_000);
        assertThat(decision.remaining()).isEqualTo(7);
        assertThat(decision.resetAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(decision.source()).isEqualTo(DecisionSource.REDIS);
    }

    @Test
    void fingerprintChangesWithTheLimitsAndOnlyWithThem() {
        assertThat(ScriptCodec.of(TWO_LIMITS).fingerprint()).hasSize(8)
            .isEqualTo(ScriptCodec.of(RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET)
                .limit(1_000, Duration.ofHours(1))
                .limit(LimitSpec.of(10, Duration.ofSeconds(1)).withBurst(20))
                .maxWait(Duration.ofMillis(250))
                .build()).fingerprint())
            .isNotEqualTo(ScriptCodec.of(TWO_LIMITS.withMaxWait(Duration.ZERO)).fingerprint());
    }

}
