package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.RedisOutageTests.Load;
import dev.limiter.autoconfigure.RedisOutageTests.Service;
import dev.limiter.autoconfigure.RedisOutageTests.ServiceConfiguration;
import dev.limiter.autoconfigure.RedisSwitches.Switch;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedisCluster;
import dev.limiter.test.VirtualClock;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Every algorithm on a real Redis Cluster of three masters with replicas, through the
 * auto-configured stack, and a master killed under load: no CROSSSLOT, MOVED or connection error
 * reaches a caller, limiters follow their failure policy until the replica is promoted, and then
 * decide in Redis again, once, without going back and forth.
 */
@RedisTest
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
    void theLimitersConnectionRejectsCommandsWhileDisconnectedAndKeepsTheApplicationsTopologyRefresh() {
        runner(TestRedisCluster.shared()).withPropertyValues("spring.data.redis.lettuce.cluster.refresh.period=7s").run((context) -> {
            LettuceConnectionFactory own = (LettuceConnectionFactory) context.getBean(LimiterRedisConnection.class).template()
                .getConnectionFactory();
            assertThat(own.getClientConfiguration().getClientOptions()).get()
                .isInstanceOfSatisfying(ClusterClientOptions.class, (options) -> {
                    assertThat(options.getDisconnectedBehavior()).isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
                    assertThat(options.getTopologyRefreshOptions().isPeriodicRefreshEnabled()).isTrue();
                    assertThat(options.getTopologyRefreshOptions().getRefreshPeriod()).isEqualTo(Duration.ofSeconds(7));
                });
        });
    }

    @Test
    void aMasterKilledUnderLoadFailsOverOnceWithoutErrorsReachingCallers() {
        try (TestRedisCluster cluster = TestRedisCluster.start(); RedisSwitches switches = RedisSwitches.record()) {
            runner(cluster).withUserConfiguration(ServiceConfiguration.class).run((context) -> {
                RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
                // Bounded by time, not by a number of calls: the local policy decides so fast during the
                // outage that a call budget could run out before the failover, leaving nothing to check after.
                Load load = Load.lasting(context.getBean(Service.class), 8, Duration.ofSeconds(90));
                load.start();
                load.awaitCalls(300);
                // The master serving one of the loaded keys.
                String victim = cluster.masterFor(context.getBean(LimiterProperties.class).getKeyPrefix() + ":{calls:user-0}");
                int before = switches.count();
                long killed = System.nanoTime();
                cluster.killMaster(victim);
                cluster.awaitHealthy(Duration.ofSeconds(30));
                Duration healthy = Duration.ofNanos(System.nanoTime() - killed);
                while (!factory.isRedisAvailable() && System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(30)) {
                    Thread.sleep(5);
                }
                Duration backInRedis = Duration.ofNanos(System.nanoTime() - killed);
                assertThat(factory.isRedisAvailable()).as("Redis decides again after the failover").isTrue();
                // A call for a slot that Redis cannot serve yet would switch the limiters back to their policy at
                // once; of 8,000 more calls on eight threads, about a thousand are for the key on the dead master.
                int target = load.calls() + 8_000;
                load.awaitCalls(target);
                assertThat(load.calls()).as("calls after Redis decides again").isGreaterThanOrEqualTo(target);
                load.stop();

                System.out.println("Cluster failover: cluster healthy again after " + healthy.toMillis()
                        + " ms, limiters decide in Redis again after " + backInRedis.toMillis() + " ms; switches since the kill: "
                        + switches.since(before));
                assertThat(load.unexpected).as("exceptions other than rejections").isEmpty();
                // Once to the failure policy, once back: not back and forth while the client still
                // sends the dead master's slots to its old connection.
                assertThat(switches.since(before)).as("switches between Redis and the failure policy after the kill")
                    .containsExactly(Switch.TO_POLICY, Switch.TO_REDIS);
                assertThat(factory.isRedisAvailable()).as("Redis still decides").isTrue();
            });
        }
    }
}
