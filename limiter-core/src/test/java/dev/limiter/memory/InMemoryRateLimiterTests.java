package dev.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The in-memory limiter's states under concurrent calls, removal and its bound. Interleavings that a
 * scheduler would produce only by chance are forced through the clock, which a decision reads after
 * the key's state and before publishing the new one.
 */
class InMemoryRateLimiterTests {

    private static final long START = 1_700_000_000_000_000L;

    private final AtomicLong now = new AtomicLong(START);

    private InMemoryRateLimiter limiter(LimiterClock clock, long maxKeys, Algorithm algorithm, LimitSpec limit) {
        return (InMemoryRateLimiter) InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(maxKeys).build().create("orders", algorithm,
                limit);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    @Timeout(120)
    void manyThreadsOnOneHotKeyAtOneInstantTakeExactlyTheLimit(Algorithm algorithm) throws Exception {
        int limit = 20_000;
        InMemoryRateLimiter limiter = limiter(now::get, 100, algorithm, LimitSpec.of(limit, Duration.ofMinutes(1)));
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Long>> admitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                admitted.add(pool.submit(() -> {
                    start.await();
                    long allowed = 0;
                    for (int i = 0; i < limit / 4; i++) {
                        if (limiter.tryAcquire("hot").allowed()) {
                            allowed++;
                        }
                    }
                    return allowed;
                }));
            }
            start.countDown();
            long total = 0;
            for (Future<Long> future : admitted) {
                total += future.get();
            }
            assertThat(total).isEqualTo(limit);
            assertThat(limiter.quota("hot").remaining()).isZero();
        }
        finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aCallThatLosesTheRaceForAKeyDecidesAgainOnWhatTheWinnerLeft(Algorithm algorithm) {
        // Another caller takes the only permit after this call found the key unused, before it publishes.
        InMemoryRateLimiter[] limiter = new InMemoryRateLimiter[1];
        boolean[] raced = new boolean[1];
        limiter[0] = limiter(() -> {
            if (!raced[0]) {
                raced[0] = true;
                assertThat(limiter[0].tryAcquire("k").allowed()).isTrue();
            }
            return START;
        }, 100, algorithm, LimitSpec.of(1, Duration.ofMinutes(1)));

        assertThat(limiter[0].tryAcquire("k").allowed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRejectionIsDecidedOnTheStateTheKeyHoldsAfterTheTimeIsRead(Algorithm algorithm) {
        // The key is at its limit when this call reads it; a reset empties it before the call has the time.
        InMemoryRateLimiter[] limiter = new InMemoryRateLimiter[1];
        boolean[] armed = new boolean[1];
        limiter[0] = limiter(() -> {
            if (armed[0]) {
                armed[0] = false;
                assertThat(limiter[0].reset("k")).isTrue();
            }
            return START;
        }, 100, algorithm, LimitSpec.of(1, Duration.ofMinutes(1)));
        assertThat(limiter[0].tryAcquire("k").allowed()).isTrue();

        armed[0] = true;
        Decision decision = limiter[0].tryAcquire("k");

        assertThat(decision.allowed()).as("decided after the reset, on an unused key").isTrue();
        assertThat(limiter[0].tryAcquire("k").allowed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aPermitTakenWhileTheKeyIsForgottenIsNotLost(Algorithm algorithm) {
        // The key is forgotten after this call read its state and before it publishes the new one.
        InMemoryRateLimiter[] limiter = new InMemoryRateLimiter[1];
        boolean[] armed = new boolean[1];
        limiter[0] = limiter(() -> {
            if (armed[0]) {
                armed[0] = false;
                limiter[0].forget("k");
            }
            return START;
        }, 100, algorithm, LimitSpec.of(3, Duration.ofMinutes(1)));
        assertThat(limiter[0].tryAcquire("k").allowed()).isTrue();

        armed[0] = true;
        assertThat(limiter[0].tryAcquire("k").allowed()).isTrue();

        assertThat(limiter[0].quota("k").remaining()).as("the permit taken after the key was forgotten").isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void keysBeyondTheBoundAreDropped(Algorithm algorithm) {
        InMemoryRateLimiter limiter = limiter(now::get, 100, algorithm, LimitSpec.of(10, Duration.ofMinutes(1)));
        for (int i = 0; i < 1_000; i++) {
            now.addAndGet(1);
            assertThat(limiter.tryAcquire("key-" + i).allowed()).isTrue();
        }

        assertThat(limiter.keyCount()).isBetween(1L, 100L);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void aBucketAtItsLimitOutlivesAFloodOfNewKeys(Algorithm algorithm) {
        // Of the keys over the bound, those that become idle soonest go first; a bucket emptied by one call
        // is idle last, however seldom it is used. (A window's keys all become idle at its end alike.)
        InMemoryRateLimiter limiter = limiter(now::get, 100, algorithm, LimitSpec.of(10, Duration.ofMinutes(1)));
        assertThat(limiter.tryAcquire("exhausted", 10).allowed()).isTrue();
        for (int i = 0; i < 1_000; i++) {
            now.addAndGet(1);
            assertThat(limiter.tryAcquire("key-" + i).allowed()).isTrue();
        }

        assertThat(limiter.keyCount()).isBetween(1L, 100L);
        assertThat(limiter.tryAcquire("exhausted").allowed()).as("the emptied bucket is still held").isFalse();
    }

    /** Moved from limiter-redis' AlgorithmBehaviourTests, which reaches memory limiters only through the API. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void keysAreDroppedOnceIdle(Algorithm algorithm) {
        InMemoryRateLimiter limiter = limiter(now::get, 10_000, algorithm, LimitSpec.of(5, Duration.ofSeconds(10)));
        Decision a = limiter.tryAcquire("a", 3);
        limiter.tryAcquire("b");
        limiter.tryAcquire("c", 6); // never allowed: stores nothing
        assertThat(limiter.keyCount()).isEqualTo(2);

        now.addAndGet(a.resetAfter().toNanos() / 1_000 - 1);
        assertThat(limiter.keyCount()).as("just before key a is idle").isPositive();

        // Dropped as soon as they are idle, not a timer-wheel step later.
        now.addAndGet(1);
        assertThat(limiter.keyCount()).isZero();
        assertThat(limiter.tryAcquire("a").remaining()).isEqualTo(4);
    }

    /**
     * A refund that makes a key whole, or one on an idle key, leaves no state: the memory half of
     * limiter-redis' RefundTests, which checks the same of Redis keys.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundThatMakesAKeyWholeLeavesNoState(Algorithm algorithm) {
        InMemoryRateLimiter limiter = (InMemoryRateLimiter) InMemoryRateLimiterFactory.builder().clock(now::get).maxKeys(10_000).build()
            .create("orders", RateLimiterConfig.of(algorithm, LimitSpec.of(5, Duration.ofSeconds(1)), LimitSpec.of(8, Duration.ofMinutes(1))));
        limiter.tryAcquire("alice", 3);

        assertThat(limiter.refund("alice", 1_000_000).remaining()).isEqualTo(5);
        assertThat(limiter.keyCount()).as("no state in memory").isZero();

        assertThat(limiter.refund("nobody", 3).remaining()).isEqualTo(5);
        assertThat(limiter.keyCount()).as("an idle key: nothing written").isZero();
    }

    @Test
    void addingAKeyDropsTheKeysFoundIdleOnceASweepIsDue() {
        KeyStates states = new KeyStates(100);
        Object era = new Object();
        states.add("a", new KeyStates.Entry("state", era, START + 1_000), START);
        states.add("b", new KeyStates.Entry("state", era, START + 10 * KeyStates.SWEEP_INTERVAL_MICROS), START);

        states.add("c", new KeyStates.Entry("state", era, START + 10 * KeyStates.SWEEP_INTERVAL_MICROS), START + 2_000);
        assertThat(states.get("a")).as("idle, but no sweep is due yet").isNotNull();

        states.add("d", new KeyStates.Entry("state", era, START + 10 * KeyStates.SWEEP_INTERVAL_MICROS),
                START + KeyStates.SWEEP_INTERVAL_MICROS);
        assertThat(states.get("a")).isNull();
        assertThat(states.get("b")).isNotNull();
        assertThat(states.get("c")).isNotNull();
    }
}
