package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.outgoing.internal.MemoryHolds;
import dev.limiter.outgoing.internal.RedisHolds;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Holds on both backends answer alike, for every algorithm: the same decisions before, during and after a
 * hold, the hold's rejection the same on both (retry-after the hold's remaining time), and the held calls
 * taking nothing on either.
 */
@RedisTest
class HoldsAgreementTests {

    @Test
    void redisAndMemoryHoldsDecideAlike(TestRedis redis) {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        connections.afterPropertiesSet();
        connections.start();
        VirtualClock clock = new VirtualClock();
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(new StringRedisTemplate(connections))
            .keyPrefix("agree-" + System.nanoTime()).clock(clock).build();
        try {
            InMemoryRateLimiterFactory memory = InMemoryRateLimiterFactory.builder().clock(clock).build();
            RedisHolds redisHolds = new RedisHolds(factory);
            MemoryHolds memoryHolds = new MemoryHolds(clock);
            for (Algorithm algorithm : Algorithm.values()) {
                RateLimiterConfig config = RateLimiterConfig.builder(algorithm).limit(LimitSpec.of(3, Duration.ofMinutes(1))).build();
                String name = "agree-" + algorithm.configName();
                HoldingLimiter onRedis = redisHolds.of(factory.create(name, config));
                HoldingLimiter inMemory = memoryHolds.of(memory.create(name, config));
                for (Duration step : List.of(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(7), Duration.ofSeconds(22),
                        Duration.ofSeconds(1))) {
                    clock.advance(step);
                    if (step.equals(Duration.ofSeconds(1))) {
                        onRedis.hold("acme", Duration.ofSeconds(30));
                        inMemory.hold("acme", Duration.ofSeconds(30));
                    }
                    HoldingLimiter.Answer fromRedis = onRedis.tryAcquire("acme", 1);
                    HoldingLimiter.Answer fromMemory = inMemory.tryAcquire("acme", 1);
                    assertThat(fromRedis).as("%s after %s", algorithm, step).isEqualTo(fromMemory);
                    assertThat(onRedis.holdRemaining("acme")).isEqualTo(inMemory.holdRemaining("acme"));
                }
            }
        }
        finally {
            factory.close();
            connections.destroy();
        }
    }

    /** A limiter of another backend than the Redis factory's keeps its holds in the process, as the memory backend does. */
    @Test
    void aLimiterNotOfTheRedisFactoryKeepsItsHoldsInTheProcess(TestRedis redis) {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        connections.afterPropertiesSet();
        connections.start();
        VirtualClock clock = new VirtualClock();
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(new StringRedisTemplate(connections)).clock(clock).build();
        try {
            RateLimiterConfig config = RateLimiterConfig.builder(Algorithm.GCRA).limit(LimitSpec.of(3, Duration.ofMinutes(1))).build();
            HoldingLimiter holding = new RedisHolds(factory, clock).of(InMemoryRateLimiterFactory.builder().clock(clock).build().create("p", config));
            holding.hold("acme", Duration.ofSeconds(5));
            assertThat(holding.blocks()).isFalse();
            assertThat(holding.tryAcquire("acme", 1).held()).isTrue();
            clock.advance(Duration.ofSeconds(5));
            assertThat(holding.tryAcquire("acme", 1).decision().allowed()).isTrue();
        }
        finally {
            factory.close();
            connections.destroy();
        }
    }
}
