package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RetunePolicy;

import org.junit.jupiter.api.Test;

/** The script call's arguments and reply as decision-prelude.lua documents them; the Redis-backed tests check that the scripts agree. */
class ScriptCodecTests {

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

    /** The encoded arguments, with the shared ones encoded once, are the arguments' UTF-8 bytes, whatever the time and permits. */
    @Test
    void encodedArgumentsAreTheArgumentsAsUtf8() {
        ScriptCodec codec = ScriptCodec.of(TWO_LIMITS);
        for (Long now : new Long[] { null, 0L, 63L, 1_700_000_000_000_000L }) {
            for (long permits : new long[] { 0, 1, 63, 64, 1_000_000, Long.MAX_VALUE }) {
                List<String> decoded = new ArrayList<>();
                for (byte[] argument : codec.argumentBytes(now, permits)) {
                    decoded.add(new String(argument, StandardCharsets.UTF_8));
                }
                assertThat(decoded).as("time %s, permits %d", now, permits).containsExactly(codec.arguments(now, permits));
            }
        }
        assertThat(codec.argumentCount()).isEqualTo(codec.arguments(null, 1).length);
        assertThat(codec.fixedArguments(null).length).isEqualTo(codec.argumentCount() - 2);
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

    /** Unchanged since keys got it: an upgrade must not make every key of a running limiter start fresh. */
    @Test
    void theFingerprintOfAConfigurationWhoseKeysResetIsTheDigestOfItsArguments() {
        assertThat(ScriptCodec.of(TWO_LIMITS).fingerprint()).isEqualTo("dd8251b4");
    }

    /** With on-retune keep, the fingerprint is the state's shape: instances agree on keys by it alone. */
    @Test
    void keysHaveTheSameFingerprintExactlyWhenTheirStateIsKept() {
        List<RateLimiterConfig> configs = new ArrayList<>();
        for (RetunePolicy onRetune : RetunePolicy.values()) {
            for (Algorithm algorithm : List.of(Algorithm.GCRA, Algorithm.SLIDING_WINDOW)) {
                for (LimitSpec limit : List.of(LimitSpec.of(10, Duration.ofSeconds(10)), LimitSpec.of(20, Duration.ofSeconds(10)),
                        LimitSpec.of(10, Duration.ofSeconds(20)))) {
                    RateLimiterConfig config = RateLimiterConfig.builder(algorithm).limit(limit).onRetune(onRetune).build();
                    configs.add(config);
                    configs.add(config.withSubWindows(5));
                    configs.add(config.withOnRedisFailure(FailurePolicy.DENY));
                    if (algorithm.isBucket()) {
                        configs.add(RateLimiterConfig.builder(algorithm).limit(limit.withBurst(3)).onRetune(onRetune).build());
                        configs.add(config.withMaxWait(Duration.ofSeconds(1)));
                    }
                }
                configs.add(RateLimiterConfig.builder(algorithm).limit(10, Duration.ofSeconds(10)).limit(100, Duration.ofMinutes(1))
                    .onRetune(onRetune).build());
            }
        }
        int kept = 0;
        for (RateLimiterConfig previous : configs) {
            for (RateLimiterConfig next : configs) {
                if (previous.algorithm() == next.algorithm()) {
                    boolean sameKeys = ScriptCodec.of(previous).fingerprint().equals(ScriptCodec.of(next).fingerprint());
                    assertThat(sameKeys).as("%s to %s", previous, next).isEqualTo(next.keepsStateOf(previous));
                    kept += (sameKeys && !previous.equals(next)) ? 1 : 0;
                }
            }
        }
        assertThat(kept).as("changes that keep the keys").isGreaterThan(20);
        RateLimiterConfig keep = RateLimiterConfig.builder(Algorithm.GCRA).limit(10, Duration.ofSeconds(10)).onRetune(RetunePolicy.KEEP).build();
        assertThat(ScriptCodec.of(keep).fingerprint()).isNotEqualTo(ScriptCodec.of(keep.withOnRetune(RetunePolicy.RESET)).fingerprint());
    }

}
