package dev.limiter.redis;

import java.time.Duration;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An instance holding slots of a concurrency limit until it is killed, for {@link ConcurrencyAcrossJvmsTests}:
 * takes {@code slots} slots of key "k", prints "held", and keeps them (its renewer renewing) forever.
 *
 * <p>Arguments: host, port, key prefix, limit, slots, lease in milliseconds.
 */
public final class ConcurrencyHolderMain {

    private ConcurrencyHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(args[0],
                Integer.parseInt(args[1])));
        connections.afterPropertiesSet();
        connections.start();
        // No explicit clock: leases run on Redis TIME, the clock every instance shares.
        ConcurrencyLimiter limiter = RedisRateLimiterFactory.builder(new StringRedisTemplate(connections)).keyPrefix(args[2])
            .failurePolicy(FailurePolicy.DENY).expectedInstances(1).localLimiters(new InMemoryRateLimiterFactory()).build()
            .createConcurrencyLimiter("calls", ConcurrencyLimiterConfig.of(Long.parseLong(args[3]))
                .withLease(Duration.ofMillis(Long.parseLong(args[5]))));
        for (int i = 0; i < Integer.parseInt(args[4]); i++) {
            limiter.tryAcquire("k").orElseThrow();
        }
        System.out.println("held");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
