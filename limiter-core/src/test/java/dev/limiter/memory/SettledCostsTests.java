package dev.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Settling a call's cost on the twins (docs/settled-costs.md): a cost above the estimate takes the key
 * into debt, and the exact number of later admissions as time passes on an explicit clock shows how
 * each algorithm pays it off; a cost below gives the rest back. 10 permits per 10 s (a burst of 10 for
 * buckets); a call reserves 2 and costs 17, so the key owes 7 beyond its limit.
 */
class SettledCostsTests {

    /** A time at the start of a 10 s and of a 1 min window. */
    static final long T0 = 1_800_000_000_000_000L;

    final AtomicLong now = new AtomicLong(T0);

    final InMemoryRateLimiterFactory factory = InMemoryRateLimiterFactory.builder().clock(now::get).build();

    RateLimiter limiter(Algorithm algorithm) {
        return factory.create("settle-" + algorithm.configName(), RateLimiterConfig.of(algorithm, LimitSpec.of(10, Duration.ofSeconds(10))));
    }

    /** Single permits admitted at {@code atMicros} after T0, taken until one is rejected. */
    long admittedAt(RateLimiter limiter, long atMicros) {
        now.set(T0 + atMicros);
        long admitted = 0;
        while (limiter.tryAcquire("k", 1).allowed()) {
            admitted++;
        }
        return admitted;
    }

    Quota reserveTwoSettleSeventeen(RateLimiter limiter) {
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
        return limiter.settle("k", 2, 17);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "FIXED_WINDOW", "SLIDING_WINDOW", "SLIDING_LOG" })
    void aWindowsDebtEndsWhenTheChargedPermitsLeaveIt(Algorithm algorithm) {
        RateLimiter limiter = limiter(algorithm);
        Quota quota = reserveTwoSettleSeventeen(limiter);
        assertThat(quota.remaining()).isZero();
        assertThat(quota.resetAfter()).isEqualTo(Duration.ofSeconds(10));
        // Nothing until the 17 permits leave, however far past the limit they are: then the whole limit.
        assertThat(admittedAt(limiter, 9_999_999)).isZero();
        assertThat(admittedAt(limiter, 10_000_000)).isEqualTo(10);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void aBucketsDebtIsPaidOffAtItsRate(Algorithm algorithm) {
        RateLimiter limiter = limiter(algorithm);
        Quota quota = reserveTwoSettleSeventeen(limiter);
        assertThat(quota.remaining()).isZero();
        // 17 taken from a bucket of 10 at 1 per second: full again after 17 s.
        assertThat(quota.resetAfter()).isEqualTo(Duration.ofSeconds(17));
        // 7 owed plus 1 to take: the first permit after 8 s, then one a second.
        assertThat(admittedAt(limiter, 7_999_999)).isZero();
        assertThat(admittedAt(limiter, 8_000_000)).isEqualTo(1);
        assertThat(admittedAt(limiter, 8_999_999)).isZero();
        assertThat(admittedAt(limiter, 9_000_000)).isEqualTo(1);
        // Whole again 17 s after the charge, less what was taken since: 10 - 2 + 8 s more.
        assertThat(admittedAt(limiter, 27_000_000)).isEqualTo(10);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aCostBelowTheEstimateGivesTheRestBack(Algorithm algorithm) {
        RateLimiter limiter = limiter(algorithm);
        assertThat(limiter.tryAcquire("k", 8).allowed()).isTrue();
        assertThat(limiter.settle("k", 8, 3).remaining()).isEqualTo(7);
        assertThat(admittedAt(limiter, 0)).isEqualTo(7);
        // Never beyond whole: a key that is whole again gets nothing more.
        assertThat(limiter.settle("k", 10, 0).remaining()).isEqualTo(10);
        assertThat(limiter.settle("k", 10, 0).remaining()).isEqualTo(10);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aCostAsEstimatedChangesNothing(Algorithm algorithm) {
        RateLimiter limiter = limiter(algorithm);
        assertThat(limiter.tryAcquire("k", 4).allowed()).isTrue();
        assertThat(limiter.settle("k", 4, 4)).isNull();
        assertThat(limiter.quota("k").remaining()).isEqualTo(6);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "FIXED_WINDOW", "SLIDING_WINDOW", "SLIDING_LOG" })
    void everyLimitOfTheKeyIsCharged(Algorithm algorithm) {
        RateLimiter limiter = factory.create("settle-two", RateLimiterConfig.builder(algorithm)
            .limit(LimitSpec.of(10, Duration.ofSeconds(10)))
            .limit(LimitSpec.of(20, Duration.ofMinutes(1)))
            .build());
        reserveTwoSettleSeventeen(limiter);
        // The 10 s limit is whole again after 10 s; the minute's still counts 17 of its 20.
        assertThat(admittedAt(limiter, 10_000_000)).isEqualTo(3);
        assertThat(admittedAt(limiter, 59_999_999)).isZero();
        assertThat(admittedAt(limiter, 60_000_000)).isEqualTo(10);
    }

    @Test
    void aChargeLargerThanTheCapacityIsTakenWhole() {
        RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET);
        limiter.tryAcquire("k", 1);
        // 1 + 2499 = 2500 permits at 1 a second from a bucket of 10: the first permit after 2491 s.
        limiter.settle("k", 1, 2_500);
        assertThat(admittedAt(limiter, 2_490_999_999L)).isZero();
        assertThat(admittedAt(limiter, 2_491_000_000L)).isEqualTo(1);
    }

    /**
     * Sixteen threads reserve 1 to 5 permits of one fixed-window key at one instant and settle each admitted
     * call at a cost from 0 to 10: the key counts exactly what the admitted calls cost, beyond the limit by
     * no more than the charges above their estimates.
     */
    @Test
    void threadsSettlingConcurrentlyChargeExactlyWhatTheCallsCost() throws Exception {
        long limit = 2_000;
        RateLimiter limiter = factory.create("settle-threads", RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.of(limit, Duration.ofHours(1))));
        AtomicLong cost = new AtomicLong();
        AtomicLong over = new AtomicLong();
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 16; t++) {
            java.util.Random random = new java.util.Random(t);
            Thread thread = new Thread(() -> {
                for (int call = 0; call < 500; call++) {
                    long reserved = 1 + random.nextInt(5);
                    if (limiter.tryAcquire("k", reserved).allowed()) {
                        long actual = random.nextInt(11);
                        limiter.settle("k", reserved, actual);
                        cost.addAndGet(actual);
                        over.addAndGet(Math.max(0, actual - reserved));
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(cost.get()).as("the calls went into debt").isGreaterThan(limit);
        long used = cost.get();
        assertThat(used).as("beyond the limit by at most the charges above the estimates").isLessThanOrEqualTo(limit + over.get());
        // The window counts exactly what the calls cost: giving back all but limit - 1 of it leaves 1 permit.
        limiter.settle("k", used - limit + 1, 0);
        assertThat(limiter.quota("k").remaining()).isEqualTo(1);
    }

    @Test
    void badSettlementsAreRefused() {
        RateLimiter limiter = limiter(Algorithm.GCRA);
        assertThatIllegalArgumentException().isThrownBy(() -> limiter.settle("k", 0, 3)).withMessageContaining("reserved permits must be at least 1");
        assertThatIllegalArgumentException().isThrownBy(() -> limiter.settle("k", 2, -1)).withMessageContaining("actual cost must be 0 or more");
        // At most 1000 times the capacity beyond the estimate at once.
        assertThatIllegalArgumentException().isThrownBy(() -> limiter.settle("k", 1, 10_002))
            .withMessageContaining("Cannot charge 10001 permits")
            .withMessageContaining("estimate the cost closer");
        assertThat(limiter.settle("k", 1, 10_001)).isNotNull();
    }
}
