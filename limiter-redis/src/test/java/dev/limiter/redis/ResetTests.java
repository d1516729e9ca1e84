package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

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
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Resetting a key makes it idle again at once, for every algorithm on Redis and in memory, and touches
 * no other key; on Redis every instance sees it, and the resetting instance forgets the rejections it
 * remembered. The clock never moves, so only the reset can admit an exhausted key again.
 */
@RedisTest
class ResetTests {

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    static List<Arguments> backendsAndAlgorithms() {
        return Arrays.stream(Backend.values())
            .flatMap(backend -> Arrays.stream(Algorithm.values()).map(algorithm -> Arguments.of(backend, algorithm)))
            .toList();
    }

    /** Two limits, so that the state a script keeps for several limits is all cleared. */
    static RateLimiterConfig config(Algorithm algorithm) {
        return RateLimiterConfig.of(algorithm, LimitSpec.of(5, Duration.ofSeconds(10)), LimitSpec.of(20, Duration.ofMinutes(1)));
    }

    @ParameterizedTest
    @MethodSource("backendsAndAlgorithms")
    void anExhaustedKeyIsAdmittedAgainRightAfterItsResetAndOtherKeysKeepTheirState(Backend backend, Algorithm algorithm) {
        RateLimiterFactory factory = backend.factory(clock, prefix);
        RateLimiter limiter = factory.create("orders", config(algorithm));
        RateLimiter otherLimiter = factory.create("search", config(algorithm));
        exhaust(limiter, "alice");
        limiter.tryAcquire("bob", 2);
        otherLimiter.tryAcquire("alice", 3);
        Quota bob = limiter.quota("bob");
        Quota aliceElsewhere = otherLimiter.quota("alice");
        assertThat(bob.remaining()).isEqualTo(3);
        assertThat(aliceElsewhere.remaining()).isEqualTo(2);

        assertThat(limiter.reset("alice")).as("alice had state").isTrue();

        Quota alice = limiter.quota("alice");
        assertThat(alice.remaining()).isEqualTo(5);
        assertThat(alice.resetAfter()).isZero();
        if (backend == Backend.REDIS) {
            assertThat(TestRedisSupport.exists(TestRedisSupport.shared(), ((RedisRateLimiter) limiter).redisKey("alice")))
                .as("the key's state is deleted").isFalse();
        }
        Decision again = limiter.tryAcquire("alice");
        assertThat(again.allowed()).isTrue();
        assertThat(again.remaining()).isEqualTo(4);
        assertThat(limiter.quota("bob")).isEqualTo(bob);
        assertThat(otherLimiter.quota("alice")).isEqualTo(aliceElsewhere);

        assertThat(limiter.reset("carol")).as("an idle key has nothing to reset").isFalse();
        assertThat(limiter.quota("carol").remaining()).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aResetIsSeenByEveryInstanceAtOnce(Algorithm algorithm) {
        RedisRateLimiterFactory one = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix).clock(clock).build();
        RedisRateLimiterFactory two = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix).clock(clock).build();
        try {
            RateLimiter onOne = one.create("orders", config(algorithm));
            RateLimiter onTwo = two.create("orders", config(algorithm));
            exhaust(onTwo, "alice");
            assertThat(onOne.tryAcquire("alice").allowed()).isFalse();

            assertThat(onOne.reset("alice")).isTrue();

            assertThat(onTwo.tryAcquire("alice").remaining()).isEqualTo(4);
            assertThat(onOne.tryAcquire("alice").remaining()).isEqualTo(3);
        }
        finally {
            one.close();
            two.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theResettingInstanceForgetsItsRememberedRejectionsAndTheOthersKeepThemUntilTheirRetryAfter(Algorithm algorithm) {
        RedisRateLimiterFactory one = withDenyCache();
        RedisRateLimiterFactory two = withDenyCache();
        try {
            RateLimiter onOne = one.create("orders", config(algorithm));
            RateLimiter onTwo = two.create("orders", config(algorithm));
            exhaust(onOne, "alice");
            Decision fromRedis = onTwo.tryAcquire("alice");
            assertThat(fromRedis.allowed()).isFalse();
            assertThat(onOne.tryAcquire("alice").source()).isEqualTo(DecisionSource.LOCAL_DENY_CACHE);
            assertThat(onTwo.tryAcquire("alice").source()).isEqualTo(DecisionSource.LOCAL_DENY_CACHE);

            assertThat(onOne.reset("alice")).isTrue();

            Decision afterReset = onOne.tryAcquire("alice");
            assertThat(afterReset.allowed()).isTrue();
            assertThat(afterReset.source()).isEqualTo(DecisionSource.REDIS);
            // The other instance learns of the reset from Redis only once its remembered rejection ends.
            Decision remembered = onTwo.tryAcquire("alice");
            assertThat(remembered.allowed()).isFalse();
            assertThat(remembered.source()).isEqualTo(DecisionSource.LOCAL_DENY_CACHE);
            clock.advance(fromRedis.retryAfter());
            Decision later = onTwo.tryAcquire("alice");
            assertThat(later.allowed()).isTrue();
            assertThat(later.source()).isEqualTo(DecisionSource.REDIS);
        }
        finally {
            one.close();
            two.close();
        }
    }

    private RedisRateLimiterFactory withDenyCache() {
        return RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix).clock(clock).localDenyCache(100).build();
    }

    /** Takes permits until the limiter rejects {@code key}. */
    static void exhaust(RateLimiter limiter, String key) {
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire(key).allowed()).as("call %d", i + 1).isTrue();
        }
        assertThat(limiter.tryAcquire(key).allowed()).isFalse();
    }
}
