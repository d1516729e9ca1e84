package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.limiter.outgoing.internal.RedisHolds;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Holds in Redis: one key in the limiter's hash tag, user text escaped, the longer hold kept, a TTL no longer than the hold. */
@RedisTest
class RedisHoldsTests {

    @Test
    void aHoldIsOneKeyInTheLimitersHashTagExpiringWithIt(TestRedis redis) {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        connections.afterPropertiesSet();
        connections.start();
        try {
            StringRedisTemplate template = new StringRedisTemplate(connections);
            String prefix = "holds-" + System.nanoTime();
            RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(template).keyPrefix(prefix).build();
            VirtualClock clock = new VirtualClock();
            RedisHolds holds = new RedisHolds(template, factory, clock);
            String key = prefix + ":{partner:a%7Db}:hold";
            assertThat(factory.companionKey("partner", "a}b", "hold")).isEqualTo(key);

            assertThat(holds.remaining("partner", "a}b")).isZero();
            holds.hold("partner", "a}b", Duration.ofSeconds(30));
            assertThat(holds.remaining("partner", "a}b")).isEqualTo(Duration.ofSeconds(30));
            assertThat(template.getExpire(key)).isBetween(1L, 30L);
            // A shorter hold keeps the longer one; another key is not held.
            clock.advance(Duration.ofSeconds(10));
            holds.hold("partner", "a}b", Duration.ofSeconds(5));
            assertThat(holds.remaining("partner", "a}b")).isEqualTo(Duration.ofSeconds(20));
            assertThat(holds.remaining("partner", "a")).isZero();
            clock.advance(Duration.ofSeconds(20));
            assertThat(holds.remaining("partner", "a}b")).isZero();
            factory.close();
        }
        finally {
            connections.destroy();
        }
    }
}
