package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.RedisRateLimiterFactory;
import dev.limiter.autoconfigure.RedisOutageTests.Load;
import dev.limiter.autoconfigure.RedisOutageTests.Service;
import dev.limiter.autoconfigure.RedisOutageTests.ServiceConfiguration;
import dev.limiter.test.TestRedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every algorithm on a real Redis Cluster of three masters with replicas, through the
 * auto-configured stack, and a master killed under load: no CROSSSLOT, MOVED or connection error
 * reaches a caller, and decisions come from Redis again once the replica is promoted.
 */
@Timeout(180)
class RedisClusterTests {

    private static ApplicationContextRunner runner(TestRedisCluster cluster) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodes()),
                    "limiter.key-prefix=cluster-" + UUID.randomUUID(), "limiter.redis.timeout=500ms")
            .withBean(VirtualClock.class, VirtualClock::new);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void everyAlgorithmDecidesExactlyOnACluster(Algorithm algorithm) {
        runner(TestRedisCluster.shared()).run((context) -> {
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            RateLimiter limiter = registry.register("api-" + algorithm.configName(),
                    RateLimiterConfig.of(algorithm, LimitSpec.of(3, Duration.ofMinutes(1)), LimitSpec.of(5, Duration.ofHours(1))));
            // Keys spread over the slots of all three masters.
            for (int user = 0; user < 12; user++) {
                String key = "user-" + user;
                for (int call = 0; call < 3; call++) {
                    assertThat(limiter.tryAcquire(key).allowed()).as("%s call %d", key, call + 1).isTrue();
                }
                Decision rejected = limiter.tryAcquire(key);
                assertThat(rejected.allowed()).isFalse();
                assertThat(rejected.violatedLimit()).isEqualTo(LimitSpec.of(3, Duration.ofMinutes(1)));
            }
            assertThat(context.getBean(RedisRateLimiterFactory.class).isRedisAvailable()).as("no call failed").isTrue();
        });
    }

    @Test
    void aMasterKilledUnderLoadFailsOverWithoutErrorsReachingCallers() {
        try (TestRedisCluster cluster = TestRedisCluster.start()) {
            runner(cluster).withUserConfiguration(ServiceConfiguration.class).run((context) -> {
                RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
                // Bounded by time, not by a number of calls: the local policy decides so fast during the
                // outage that a call budget could run out before the failover, leaving nothing to check after.
                Load load = Load.lasting(context.getBean(Service.class), 8, Duration.ofSeconds(90));
                load.start();
                load.awaitCalls(300);
                // The master serving one of the loaded keys.
                String victim = cluster.masterFor(context.getBean(LimiterProperties.class).getKeyPrefix() + ":{calls:user-0}");
                cluster.killMaster(victim);
                cluster.awaitHealthy(Duration.ofSeconds(30));
                // Once the replica is promoted, Redis decides again. (Known: for some seconds after the
                // failover, limiters can still alternate between Redis and their policy; see the README.)
                long healthy = System.nanoTime();
                while (!factory.isRedisAvailable() && System.nanoTime() - healthy < TimeUnit.SECONDS.toNanos(30)) {
                    Thread.sleep(20);
                }
                assertThat(factory.isRedisAvailable()).as("Redis decides again after the failover").isTrue();
                load.awaitCalls(load.calls() + 2_000);
                load.stop();
                assertThat(load.unexpected).as("exceptions other than rejections").isEmpty();
            });
        }
    }
}
