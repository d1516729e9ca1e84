package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * While Redis fails, a concurrency limit follows its failure policy: allow admits, deny rejects, local
 * keeps to this instance's share of the limit in memory; permits taken before the outage close without
 * bothering their callers.
 */
@RedisTest
@Timeout(60)
class ConcurrencyFailurePolicyTests {

    PrivateRedis server;

    final VirtualClock clock = new VirtualClock();

    RedisRateLimiterFactory factory;

    @BeforeEach
    void startPrivateRedis() {
        server = PrivateRedis.start(Duration.ofMillis(500), Delay.constant(Duration.ofMillis(50)));
    }

    @AfterEach
    void stopPrivateRedis() {
        if (factory != null) {
            factory.close();
        }
        if (server != null) {
            server.close();
        }
    }

    ConcurrencyLimiter limiter(FailurePolicy factoryPolicy, ConcurrencyLimiterConfig config) {
        factory = RedisRateLimiterFactory.builder(server.template).keyPrefix(TestRedisSupport.uniquePrefix()).clock(clock)
            .failurePolicy(factoryPolicy).expectedInstances(2)
            .localLimiters(InMemoryRateLimiterFactory.builder().clock(clock).build()).build();
        return factory.createConcurrencyLimiter("calls", config);
    }

    @Test
    void allowAdmitsEveryCallWhileRedisIsDown() {
        ConcurrencyLimiter limiter = limiter(FailurePolicy.ALLOW, ConcurrencyLimiterConfig.of(1));
        Permit before = limiter.tryAcquire("k").orElseThrow();
        server.redis.kill();
        before.close();
        Permit first = limiter.tryAcquire("k").orElseThrow();
        Permit second = limiter.acquire("k");
        assertThat(limiter.inUse()).isEqualTo(2);
        first.close();
        second.close();
        assertThat(limiter.inUse()).isZero();
    }

    @Test
    void denyRejectsEveryCallWhileRedisIsDown() {
        ConcurrencyLimiter limiter = limiter(FailurePolicy.ALLOW, ConcurrencyLimiterConfig.of(5).withOnRedisFailure(FailurePolicy.DENY));
        server.redis.kill();
        assertThat(limiter.tryAcquire("k")).isEmpty();
        assertThatThrownBy(() -> limiter.acquire("k")).isInstanceOf(RateLimitExceededException.class);
        assertThat(limiter.inUse()).isZero();
    }

    @Test
    void localKeepsToThisInstancesShareInMemory() {
        ConcurrencyLimiter limiter = limiter(FailurePolicy.LOCAL, ConcurrencyLimiterConfig.of(5));
        server.redis.kill();
        // 5 among the 2 instances expected: 3 here, rounded up.
        Permit one = limiter.tryAcquire("k").orElseThrow();
        limiter.tryAcquire("k").orElseThrow();
        limiter.tryAcquire("k").orElseThrow();
        assertThat(limiter.tryAcquire("k")).isEmpty();
        assertThat(limiter.inUse()).isEqualTo(3);
        one.close();
        assertThat(limiter.tryAcquire("k")).as("a local slot released is taken again").isPresent();
    }
}
