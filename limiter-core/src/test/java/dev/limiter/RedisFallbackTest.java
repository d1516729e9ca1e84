package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.limiter.test.TestRedis;

/** A Redis outage must not reach callers when a fallback is configured, and must when none is. */
@Timeout(60)
class RedisFallbackTest {

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    TestRedis redis;

    ClientResources resources;

    LettuceConnectionFactory connections;

    StringRedisTemplate template;

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    @BeforeEach
    void startPrivateRedis() {
        redis = TestRedis.start();
        // A Redis given by URL cannot be killed; this test needs one it owns.
        Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
        // Short timeouts and reconnect delay keep the outage and the recovery quick; rejecting
        // commands while disconnected makes each failing call fail at once instead of waiting.
        resources = DefaultClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(50))).build();
        LettuceClientConfiguration client = LettuceClientConfiguration.builder()
            .commandTimeout(Duration.ofMillis(500))
            .shutdownTimeout(Duration.ZERO)
            .clientOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build())
            .clientResources(resources)
            .build();
        connections = TestRedisSupport.connectionFactory(redis, client);
        template = TestRedisSupport.template(connections);
    }

    @AfterEach
    void stopPrivateRedis() {
        if (connections != null) {
            connections.destroy();
        }
        if (resources != null) {
            resources.shutdown(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (redis != null) {
            redis.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decidesInMemoryWhileRedisIsDownAndInRedisOnceItIsBack(Algorithm algorithm) throws InterruptedException {
        RedisRateLimiter limiter = (RedisRateLimiter) new RedisRateLimiterFactory(template).withKeyPrefix(prefix)
            .withClock(clock)
            .withFallback(new InMemoryRateLimiterFactory(clock, 1000))
            .create("orders", algorithm, FIVE_PER_10S);
        String redisKey = limiter.redisKey("k");

        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
        assertThat(TestRedisSupport.exists(template, redisKey)).as("decided by Redis").isTrue();

        redis.kill();
        // The in-memory fallback starts empty and applies the same limit.
        for (int i = 0; i < 5; i++) {
            Decision d = limiter.tryAcquire("k");
            assertThat(d.allowed()).as("call %d during the outage", i + 1).isTrue();
            assertThat(d.remaining()).isEqualTo(4 - i);
        }
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();

        redis.restart(); // empty again
        // Wait (bounded) for Lettuce to reconnect. The virtual clock does not move, so the exhausted
        // fallback rejects every call: the first allowed decision can only come from Redis.
        Decision fromRedis = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Decision d = limiter.tryAcquire("k");
            if (d.allowed()) {
                fromRedis = d;
                break;
            }
            Thread.sleep(20); // waiting for a reconnect, not for time to pass
        }
        assertThat(fromRedis).as("a decision from Redis after restart").isNotNull();
        assertThat(fromRedis.remaining()).isEqualTo(4);
        assertThat(TestRedisSupport.exists(template, redisKey)).isTrue();
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(3);
    }

    @Test
    void withoutFallbackTheRedisErrorPropagates() {
        RateLimiter limiter = new RedisRateLimiterFactory(template).withKeyPrefix(prefix)
            .withClock(clock)
            .create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        redis.kill();
        assertThatThrownBy(() -> limiter.tryAcquire("k")).isInstanceOf(DataAccessException.class);
        // Argument errors are the caller's, not Redis's: never hidden by a fallback either.
        assertThatThrownBy(() -> limiter.tryAcquire("k", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fallbackNeverHidesArgumentErrors() {
        RateLimiter limiter = new RedisRateLimiterFactory(template).withKeyPrefix(prefix)
            .withClock(clock)
            .withFallback(new InMemoryRateLimiterFactory(clock, 1000))
            .create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        redis.kill();
        assertThatThrownBy(() -> limiter.tryAcquire("k", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
