package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reading a key's quota takes nothing and writes nothing, and reports what the last decision left:
 * for every algorithm, on Redis and in memory.
 */
@RedisTest
class QuotaTests {

    static final List<LimitSpec> LIMITS = List.of(LimitSpec.of(5, Duration.ofSeconds(1)), LimitSpec.of(20, Duration.ofMinutes(1)));

    static List<Arguments> backendsAndAlgorithms() {
        return java.util.Arrays.stream(Backend.values())
            .flatMap(backend -> java.util.Arrays.stream(Algorithm.values()).map(algorithm -> Arguments.of(backend, algorithm)))
            .toList();
    }

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void aQuotaIsWhatTheLastDecisionLeftAndReadingItChangesNothing(Backend backend, Algorithm algorithm) {
        RateLimiterConfig config = RateLimiterConfig.of(algorithm, LIMITS.toArray(LimitSpec[]::new));
        RateLimiterFactory factory = backend.factory(clock, prefix);
        RateLimiter read = factory.create("read", config);
        RateLimiter unread = factory.create("unread", config);

        Quota fresh = read.quota("k");
        assertThat(fresh.remaining()).isEqualTo(config.capacity(0));
        assertThat(fresh.limit()).isEqualTo(config.capacity(0));
        assertThat(fresh.resetAfter()).isZero();
        assertThat(fresh.source()).isEqualTo(backend == Backend.REDIS ? DecisionSource.REDIS : DecisionSource.MEMORY);
        if (backend == Backend.REDIS) {
            assertThat(TestRedisSupport.keysUnder(TestRedisSupport.shared(), prefix)).as("a quota read writes nothing").isEmpty();
        }

        Random random = new Random(42);
        for (int step = 0; step < 60; step++) {
            long permits = 1 + random.nextInt(3);
            Decision decision = read.tryAcquire("k", permits);
            assertThat(unread.tryAcquire("k", permits)).as("step %d", step).isEqualTo(decision);
            Quota quota = read.quota("k");
            assertThat(quota.remaining()).as("step %d", step).isEqualTo(decision.remaining());
            assertThat(quota.limit()).isEqualTo(decision.limit());
            assertThat(quota.resetAfter()).isEqualTo(decision.resetAfter());
            clock.advanceMicros(random.nextInt(150_000));
        }
    }
}
