package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * While Redis cannot answer, each instance takes its share of what Redis last said of a key, not a
 * fresh limit: together the instances admit no more than Redis would have. Time is virtual.
 */
class LocalSharesTests {

    static final LimitSpec FIFTY_PER_HOUR = LimitSpec.of(50, Duration.ofHours(1));

    final VirtualClock clock = new VirtualClock();

    final AtomicInteger instances = new AtomicInteger(3);

    LocalShares shares(Algorithm algorithm, LimitSpec... limits) {
        return new LocalShares("orders", RateLimiterConfig.of(algorithm, limits), InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(1000).build(), clock,
                instances::get, 1000);
    }

    static long admitted(LocalShares shares, String key, int calls) {
        long admitted = 0;
        for (int i = 0; i < calls; i++) {
            if (shares.decide(key, 1).allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    /**
     * Redis' answers are looked up quietly (not as uses of the key), and the cache's upkeep runs on the
     * caller's thread: the keys remembered stay bounded all the same, and a key's latest answer is
     * what its share starts from.
     */
    @Test
    void answersOfManyKeysStayBoundedAndTheLatestCounts() {
        LocalShares shares = new LocalShares("orders", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, FIFTY_PER_HOUR),
                InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(10).build(), clock, () -> 1, 10);
        for (int i = 0; i < 1_000; i++) {
            shares.observe("k" + i, 0, 50, Duration.ofMinutes(30).toNanos() / 1_000);
            shares.observe("k" + i, 0, 40, Duration.ofMinutes(30).toNanos() / 1_000);
            assertThat(shares.keyCount()).isLessThanOrEqualTo(10);
        }
        LocalShares few = shares(Algorithm.TOKEN_BUCKET, FIFTY_PER_HOUR);
        instances.set(1);
        few.observe("k", 0, 50, Duration.ofMinutes(30).toNanos() / 1_000);
        few.observe("k", 0, 2, Duration.ofMinutes(30).toNanos() / 1_000);
        assertThat(admitted(few, "k", 10)).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void instancesTogetherTakeNoMoreThanRedisLastSaidRemained(Algorithm algorithm) {
        List<LocalShares> three = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LocalShares shares = shares(algorithm, FIFTY_PER_HOUR);
            // Redis answered each: 20 left, whole again in 30 minutes.
            shares.observe("k", 0, 20, Duration.ofMinutes(30).toNanos() / 1_000);
            three.add(shares);
        }
        long total = 0;
        for (LocalShares shares : three) {
            total += admitted(shares, "k", 100);
        }
        // 20 / 3 each, rounded down.
        assertThat(total).isEqualTo(18);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aKeyRedisSaidWasExhaustedStaysExhaustedLocally(Algorithm algorithm) {
        LocalShares shares = shares(algorithm, FIFTY_PER_HOUR);
        shares.observe("k", 0, 0, Duration.ofMinutes(30).toNanos() / 1_000);
        Decision decision = shares.decide("k", 1);
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.source()).isEqualTo(DecisionSource.LOCAL_FALLBACK);
        assertThat(decision.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(30));
        assertThat(decision.violatedLimit()).isEqualTo(FIFTY_PER_HOUR);
    }

    @Test
    void onceTheLimitIsWholeAgainEachInstanceHasItsShareOfIt() {
        LocalShares shares = shares(Algorithm.FIXED_WINDOW, FIFTY_PER_HOUR);
        // The window ends in 10 minutes: the reset Redis gave.
        clock.advance(Duration.ofMinutes(50));
        shares.observe("k", 0, 0, Duration.ofMinutes(10).toNanos() / 1_000);
        assertThat(admitted(shares, "k", 10)).isZero();
        clock.advance(Duration.ofMinutes(10));
        // 50 / 3 rounded down.
        assertThat(admitted(shares, "k", 100)).isEqualTo(16);
    }

    @Test
    void aBucketRefillsTheShareAtTheSharedRate() {
        instances.set(2);
        // 60 per minute: one a second for all, one every two seconds for each of two instances.
        LocalShares shares = shares(Algorithm.TOKEN_BUCKET, LimitSpec.of(60, Duration.ofMinutes(1)));
        shares.observe("k", 0, 0, Duration.ofMinutes(1).toNanos() / 1_000);
        assertThat(shares.decide("k", 1).allowed()).isFalse();
        clock.advance(Duration.ofMillis(1999));
        assertThat(shares.decide("k", 1).allowed()).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(shares.decide("k", 1).allowed()).isTrue();
        assertThat(shares.decide("k", 1).allowed()).isFalse();
    }

    @Test
    void aNewAnswerFromRedisReplacesTheShareDrawnFromTheOldOne() {
        LocalShares shares = shares(Algorithm.FIXED_WINDOW, FIFTY_PER_HOUR);
        shares.observe("k", 0, 9, Duration.ofMinutes(30).toNanos() / 1_000);
        assertThat(admitted(shares, "k", 10)).isEqualTo(3);
        shares.observe("k", 0, 30, Duration.ofMinutes(30).toNanos() / 1_000);
        assertThat(admitted(shares, "k", 20)).isEqualTo(10);
    }

    @Test
    void aKeyRedisNeverAnsweredGetsItsShareOfTheLimit() {
        LocalShares shares = shares(Algorithm.SLIDING_LOG, FIFTY_PER_HOUR);
        assertThat(admitted(shares, "unseen", 100)).isEqualTo(16);
    }

    @Test
    void fewerPermitsThanInstancesNeverAddUpToMoreThanTheLimit() {
        instances.set(5);
        LocalShares shares = shares(Algorithm.FIXED_WINDOW, LimitSpec.of(2, Duration.ofSeconds(10)));
        long total = 0;
        for (int window = 0; window < 30; window++) {
            total += admitted(shares, "k", 10);
            clock.advance(Duration.ofSeconds(10));
        }
        // Each instance gets one permit per 30 s (windows aligned to the epoch: 10 or 11 of them in 300 s),
        // so five instances together stay within the 60 the limit allows in 300 s.
        assertThat(total).isBetween(10L, 11L);
        assertThat(5 * total).isLessThanOrEqualTo(60);
    }

    @Test
    void theInstanceCountInForceWhenRedisFailsDividesTheLimit() {
        instances.set(1);
        LocalShares shares = shares(Algorithm.TOKEN_BUCKET, FIFTY_PER_HOUR);
        shares.observe("k", 0, 40, Duration.ofMinutes(10).toNanos() / 1_000);
        instances.set(4);
        assertThat(admitted(shares, "k", 100)).isEqualTo(10);
    }
}
