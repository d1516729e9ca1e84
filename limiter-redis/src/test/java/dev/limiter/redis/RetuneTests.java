package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.Outcome;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.Retuning;
import dev.limiter.RetunePolicy;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Retuning a limiter while it runs: the limiter and every view of it decide by the new configuration
 * from the next call on, on Redis and in memory alike; with on-retune reset every key starts fresh,
 * with keep each key continues from its state as long as the state keeps its shape, on every
 * instance alike. The clock stands still unless a test moves it, so only the retune changes an answer.
 */
@RedisTest
class RetuneTests {

    /** 10 s windows: the virtual clock starts on a boundary of them, so no window ends by itself. */
    static final Duration WINDOW = Duration.ofSeconds(10);

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    static RateLimiterConfig config(Algorithm algorithm, long limit, RetunePolicy onRetune) {
        return RateLimiterConfig.builder(algorithm).limit(limit, WINDOW).onRetune(onRetune).build();
    }

    static List<Arguments> backendsAndAlgorithms() {
        return Arrays.stream(Backend.values())
            .flatMap(backend -> Arrays.stream(Algorithm.values()).map(algorithm -> Arguments.of(backend, algorithm)))
            .toList();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void keepContinuesTheUsedPermitsOfEachKeyAndResetStartsItFresh(Backend backend) {
        RateLimiterFactory factory = backend.factory(clock, prefix);
        RateLimiter kept = factory.create("kept", config(Algorithm.FIXED_WINDOW, 10, RetunePolicy.KEEP));
        RateLimiter reset = factory.create("reset", config(Algorithm.FIXED_WINDOW, 10, RetunePolicy.RESET));
        kept.tryAcquire("alice", 4);
        reset.tryAcquire("alice", 4);

        Retuning keeping = kept.retune(config(Algorithm.FIXED_WINDOW, 20, RetunePolicy.KEEP));
        Retuning resetting = reset.retune(config(Algorithm.FIXED_WINDOW, 20, RetunePolicy.RESET));

        assertThat(keeping.stateKept()).isTrue();
        assertThat(keeping.state()).isEqualTo("keys keep their state (on-retune: keep)");
        assertThat(resetting.stateKept()).isFalse();
        assertThat(resetting.state()).isEqualTo("keys start fresh (on-retune: reset)");
        assertThat(kept.config().limits()).containsExactly(LimitSpec.of(20, WINDOW));
        assertThat(kept.quota("alice").remaining()).isEqualTo(16);
        assertThat(reset.quota("alice").remaining()).isEqualTo(20);
        assertThat(kept.tryAcquire("alice", 16).allowed()).isTrue();
        assertThat(kept.tryAcquire("alice").allowed()).isFalse();
        assertThat(reset.tryAcquire("alice", 20).allowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void everyViewOfTheLimiterDecidesByTheNewConfigurationAtOnce(Backend backend) {
        RateLimiterRegistry registry = new RateLimiterRegistry(backend.factory(clock, prefix));
        RateLimiter limiter = registry.register("orders", config(Algorithm.TOKEN_BUCKET, 2, RetunePolicy.RESET));
        RateLimiter withFallback = limiter.reportingRejectionsAs(Outcome.FALLBACK);
        assertThat(withFallback.tryAcquire("k", 2).allowed()).isTrue();
        assertThat(withFallback.tryAcquire("k").allowed()).isFalse();

        registry.retune("orders", config(Algorithm.TOKEN_BUCKET, 5, RetunePolicy.RESET));

        assertThat(withFallback.config().limits()).containsExactly(LimitSpec.of(5, WINDOW));
        Decision decision = withFallback.tryAcquire("k", 5);
        assertThat(decision.allowed()).isTrue();
        assertThat(decision.limit()).isEqualTo(5);
        assertThat(registry.get("orders").quota("k").remaining()).isZero();
        assertThat(registry.register("orders", config(Algorithm.TOKEN_BUCKET, 5, RetunePolicy.RESET))).isSameAs(limiter);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void keysStartFreshWithKeepWhenTheShapeOfTheirStateChanges(Backend backend) {
        RateLimiter limiter = backend.factory(clock, prefix).create("api", config(Algorithm.SLIDING_WINDOW, 10, RetunePolicy.KEEP));
        limiter.tryAcquire("k", 4);

        Retuning windows = limiter.retune(RateLimiterConfig.builder(Algorithm.SLIDING_WINDOW).limit(10, Duration.ofSeconds(20))
            .onRetune(RetunePolicy.KEEP).build());
        assertThat(windows.stateKept()).isFalse();
        assertThat(windows.state()).isEqualTo("keys start fresh: on-retune is keep, but the windows changed ([PT10S] to [PT20S]), "
                + "so their state has another shape");
        assertThat(limiter.quota("k").remaining()).isEqualTo(10);
        limiter.tryAcquire("k", 3);

        Retuning algorithm = limiter.retune(config(Algorithm.FIXED_WINDOW, 10, RetunePolicy.KEEP));
        assertThat(algorithm.stateKept()).isFalse();
        assertThat(algorithm.state()).contains("the algorithm changed (sliding-window to fixed-window)");
        assertThat(limiter.quota("k").remaining()).isEqualTo(10);
        assertThat(limiter.tryAcquire("k", 10).allowed()).isTrue();
    }

    @Test
    void aRetuneToTheSameConfigurationChangesNothing() {
        RateLimiter limiter = Backend.REDIS.factory(clock, prefix).create("same", config(Algorithm.GCRA, 10, RetunePolicy.RESET));
        limiter.tryAcquire("k", 4);
        Retuning retuning = limiter.retune(config(Algorithm.GCRA, 10, RetunePolicy.RESET));
        assertThat(retuning.changed()).isFalse();
        assertThat(retuning.state()).isEqualTo("unchanged");
        assertThat(limiter.quota("k").remaining()).isEqualTo(6);
    }

    /**
     * What each algorithm keeps: counting algorithms their used permits (4 used, 16 of 20 left);
     * token bucket its tokens (6 of 20: it refills from there); leaky bucket its level (4, so 16 of 20
     * left); gcra its arrival time (4 cells of 1 s at the old rate are 8 cells at the new one, so 12 of
     * 20 left). Then, lowered below what a key used, no answer reports negative permits: window
     * algorithms reject until the window ends, the leaky bucket until its level of 8 has drained to 2 at
     * the new rate (20 s), while the token bucket still has 2 tokens and gcra 3.3 s of its 10 s tolerance.
     */
    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void keptStateWrittenUnderOtherLimitsIsReadSanelyByEveryAlgorithm(Backend backend, Algorithm algorithm) {
        RateLimiter limiter = backend.factory(clock, prefix).create("sane", config(algorithm, 10, RetunePolicy.KEEP));
        assertThat(limiter.tryAcquire("k", 4).remaining()).isEqualTo(6);

        limiter.retune(config(algorithm, 20, RetunePolicy.KEEP));
        long expected = switch (algorithm) {
            case TOKEN_BUCKET -> 6;
            case GCRA -> 12;
            default -> 16;
        };
        assertThat(limiter.quota("k").remaining()).as("raised to 20").isEqualTo(expected);
        assertThat(limiter.tryAcquire("k", 4).allowed()).isTrue();

        limiter.retune(config(algorithm, 3, RetunePolicy.KEEP));
        Decision lowered = limiter.tryAcquire("k");
        assertThat(lowered.limit()).isEqualTo(3);
        switch (algorithm) {
            case TOKEN_BUCKET -> assertThat(lowered).returns(true, Decision::allowed).returns(1L, Decision::remaining);
            case GCRA -> assertThat(lowered).returns(true, Decision::allowed).returns(0L, Decision::remaining);
            case LEAKY_BUCKET -> assertThat(lowered).returns(false, Decision::allowed).returns(0L, Decision::remaining)
                .returns(Duration.ofSeconds(20), Decision::retryAfter);
            default -> assertThat(lowered).returns(false, Decision::allowed).returns(0L, Decision::remaining)
                .returns(WINDOW, Decision::retryAfter);
        }
        assertThat(limiter.quota("k").remaining()).isEqualTo(lowered.remaining());
        if (!algorithm.isBucket()) {
            clock.advance(WINDOW);
            assertThat(limiter.tryAcquire("k", 3).allowed()).as("a window later").isTrue();
        }
    }

    /** A bucket holds no more than its burst: tokens above a lowered burst are clamped to it. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void tokensAboveALoweredBurstAreClampedToIt(Backend backend) {
        RateLimiter limiter = backend.factory(clock, prefix).create("clamp", config(Algorithm.TOKEN_BUCKET, 10, RetunePolicy.KEEP));
        limiter.tryAcquire("k", 1);
        limiter.retune(RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET).limit(LimitSpec.of(10, WINDOW).withBurst(4))
            .onRetune(RetunePolicy.KEEP).build());
        assertThat(limiter.quota("k").remaining()).isEqualTo(4);
        assertThat(limiter.tryAcquire("k", 4).allowed()).isTrue();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    }

    /**
     * Instances agree on keys without asking each other: each retunes its own limiter with keep, and
     * both read and write the same key, as does an instance started later with the new configuration.
     */
    @Test
    void instancesRetunedWithKeepAgreeOnKeysAndSoDoesOneStartedLater() {
        RateLimiter first = Backend.REDIS.factory(clock, prefix).create("shared", config(Algorithm.LEAKY_BUCKET, 10, RetunePolicy.KEEP));
        RateLimiter second = Backend.REDIS.factory(clock, prefix).create("shared", config(Algorithm.LEAKY_BUCKET, 10, RetunePolicy.KEEP));
        first.tryAcquire("k", 3);
        second.tryAcquire("k", 1);

        first.retune(config(Algorithm.LEAKY_BUCKET, 20, RetunePolicy.KEEP));
        assertThat(second.tryAcquire("k", 2).remaining()).as("the second still decides by 10").isEqualTo(4);
        second.retune(config(Algorithm.LEAKY_BUCKET, 20, RetunePolicy.KEEP));
        RateLimiter later = Backend.REDIS.factory(clock, prefix).create("shared", config(Algorithm.LEAKY_BUCKET, 20, RetunePolicy.KEEP));

        assertThat(((RedisRateLimiter) first).redisKey("k")).isEqualTo(((RedisRateLimiter) second).redisKey("k"))
            .isEqualTo(((RedisRateLimiter) later).redisKey("k"));
        assertThat(first.quota("k").remaining()).isEqualTo(14);
        assertThat(second.tryAcquire("k", 4).remaining()).isEqualTo(10);
        assertThat(later.quota("k").remaining()).isEqualTo(10);
        assertThat(first.quota("k").remaining()).isEqualTo(10);
    }

    /** A rejection remembered under the old limits would hold back a call the new ones admit. */
    @Test
    void theLocalDenyCacheForgetsTheRejectionsOfTheOldLimits() {
        RateLimiterFactory factory = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix).clock(clock)
            .localDenyCache(100).build();
        RateLimiter limiter = factory.create("flood", config(Algorithm.FIXED_WINDOW, 2, RetunePolicy.KEEP));
        RateLimiter other = factory.create("other", config(Algorithm.FIXED_WINDOW, 2, RetunePolicy.KEEP));
        limiter.tryAcquire("k", 2);
        other.tryAcquire("k", 2);
        assertThat(limiter.tryAcquire("k").rejected()).isTrue();
        assertThat(other.tryAcquire("k").rejected()).isTrue();

        limiter.retune(config(Algorithm.FIXED_WINDOW, 5, RetunePolicy.KEEP));

        Decision decision = limiter.tryAcquire("k");
        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).isEqualTo(2);
        assertThat(other.tryAcquire("k").source()).as("the other limiter's rejection is still remembered")
            .isEqualTo(dev.limiter.DecisionSource.LOCAL_DENY_CACHE);
    }
}
