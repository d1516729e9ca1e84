package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.Permit;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedisCluster;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Concurrency limits on a real Redis Cluster: a key's slots and queue share its hash tag, so keys spread
 * over every master are taken, queued for, renewed and released without CROSSSLOT, each with its limit.
 */
@RedisTest
class ConcurrencyClusterTests {

    @Test
    void slotsOfKeysOnEveryMasterAreTakenRenewedAndReleased() {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisClusterConfiguration(TestRedisCluster.shared().nodes()));
        connections.afterPropertiesSet();
        connections.start();
        try {
            VirtualClock clock = new VirtualClock();
            RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(new StringRedisTemplate(connections))
                .keyPrefix(TestRedisSupport.uniquePrefix()).clock(clock).failurePolicy(FailurePolicy.DENY).expectedInstances(1).build();
            RedisConcurrencyLimiter limiter = (RedisConcurrencyLimiter) factory.createConcurrencyLimiter("calls",
                    ConcurrencyLimiterConfig.of(2).withLease(Duration.ofSeconds(10)));
            List<Permit> permits = new ArrayList<>();
            for (int key = 0; key < 30; key++) {
                permits.add(limiter.tryAcquire("k" + key).orElseThrow());
                permits.add(limiter.tryAcquire("k" + key).orElseThrow());
                assertThat(limiter.tryAcquire("k" + key)).as("key k%d is full", key).isEmpty();
                assertThat(limiter.take("k" + key, "waiter")).as("queued for key k%d", key).isNull();
            }
            clock.advance(Duration.ofSeconds(9));
            limiter.renewNow();
            clock.advance(Duration.ofSeconds(9));
            assertThat(limiter.tryAcquire("k7")).as("renewed on its master").isEmpty();
            permits.forEach(Permit::close);
            assertThat(limiter.inUse()).isZero();
            for (int key = 0; key < 30; key += 2) {
                // The waiter's ticket ran out meanwhile (the clock went on); it queues again, at the head.
                Permit waited = limiter.take("k" + key, "waiter");
                assertThat(waited).as("the waiter's, on its master").isNotNull();
                waited.close();
            }
            for (int key = 1; key < 30; key += 2) {
                limiter.leave("k" + key, "waiter");
            }
            for (int key = 0; key < 30; key++) {
                assertThat(limiter.tryAcquire("k" + key)).as("released on its master").isPresent();
            }
            factory.close();
        }
        finally {
            connections.destroy();
        }
    }
}
