package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedisCluster;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * On a Redis Cluster, a decision that reads a hold touches two keys of one hash tag: no CROSSSLOT, for keys
 * spread over every master, blocking and through the reactive API (with DENY as the failure policy, an
 * error would show as a rejection that is not the hold's).
 */
@RedisTest
class HoldingClusterTests {

    static LettuceConnectionFactory connections;

    static StringRedisTemplate cluster;

    @BeforeAll
    static void connect() {
        connections = new LettuceConnectionFactory(new RedisClusterConfiguration(TestRedisCluster.shared().nodes()));
        connections.afterPropertiesSet();
        connections.start();
        cluster = new StringRedisTemplate(connections);
    }

    @AfterAll
    static void disconnect() {
        connections.destroy();
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void heldDecisionsOnAClusterReadTheHoldOfTheirOwnSlot(boolean async) throws Exception {
        VirtualClock clock = new VirtualClock();
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(cluster).keyPrefix(TestRedisSupport.uniquePrefix())
            .clock(clock).failurePolicy(FailurePolicy.DENY).expectedInstances(1);
        RedisRateLimiterFactory factory = (async ? builder.reactiveRedis(new ReactiveStringRedisTemplate(connections)) : builder).build();
        try {
            HoldingLimiter holding = factory.holding(factory.create("partner",
                    RateLimiterConfig.builder(Algorithm.GCRA).limit(LimitSpec.of(100, Duration.ofMinutes(1))).build()));
            for (int i = 0; i < 30; i++) {
                String key = "key-" + i;
                if (i % 2 == 0) {
                    holding.hold(key, Duration.ofSeconds(10));
                }
                HoldingLimiter.Answer answer = async ? holding.tryAcquireAsync(key, 1).toCompletableFuture().get() : holding.tryAcquire(key, 1);
                assertThat(answer.held()).as("key %s", key).isEqualTo(i % 2 == 0);
                assertThat(answer.decision().allowed()).as("key %s", key).isEqualTo(i % 2 != 0);
                assertThat(holding.holdRemaining(key)).isEqualTo((i % 2 == 0) ? Duration.ofSeconds(10) : Duration.ZERO);
            }
            assertThat(factory.isRedisAvailable()).isTrue();
        }
        finally {
            factory.close();
        }
    }
}
