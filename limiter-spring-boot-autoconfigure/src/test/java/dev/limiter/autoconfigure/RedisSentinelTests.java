package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
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
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedisSentinel;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The auto-configured stack on a master watched by three sentinels ({@code spring.data.redis.sentinel.*}):
 * every algorithm decides exactly on the master the sentinels name, and when that master is killed
 * under load no error but rejections reaches a caller and decisions come from Redis again, on the
 * promoted replica, once the sentinels have failed over.
 */
@RedisTest
@Timeout(120)
class RedisSentinelTests {

    private static ApplicationContextRunner runner(TestRedisSentinel sentinel) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.sentinel.master=" + sentinel.masterName(),
                    "spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinels()),
                    "limiter.key-prefix=sentinel-" + UUID.randomUUID(), "limiter.redis.timeout=500ms")
            .withBean(VirtualClock.class, VirtualClock::new);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void everyAlgorithmDecidesExactlyOnTheMasterTheSentinelsName(Algorithm algorithm) {
        TestRedisSentinel sentinel = TestRedisSentinel.shared();
        runner(sentinel).run((context) -> {
            RateLimiter limiter = context.getBean(RateLimiterRegistry.class).register("api-" + algorithm.configName(),
                    RateLimiterConfig.of(algorithm, LimitSpec.of(3, Duration.ofMinutes(1)), LimitSpec.of(5, Duration.ofHours(1))));
            for (int user = 0; user < 3; user++) {
                String key = "user-" + user;
                for (int call = 0; call < 3; call++) {
                    assertThat(limiter.tryAcquire(key).allowed()).as("%s call %d", key, call + 1).isTrue();
                }
                Decision rejected = limiter.tryAcquire(key);
                assertThat(rejected.allowed()).isFalse();
                assertThat(rejected.violatedLimit()).isEqualTo(LimitSpec.of(3, Duration.ofMinutes(1)));
            }
            assertThat(context.getBean(RedisRateLimiterFactory.class).isRedisAvailable()).as("no call failed").isTrue();
            String prefix = context.getBean(LimiterProperties.class).getKeyPrefix();
            assertThat(keysOn(sentinel.master(), prefix + ":{api-*")).as("decision keys on the master " + sentinel.master())
                .isNotEmpty()
                .allMatch((key) -> key.contains("api-" + algorithm.configName()));
            assertThat(keysOn(sentinel.master(), prefix + "*")).as("and the instances' heartbeat").contains(prefix + ":{instances}");
        });
    }

    @Test
    void theMasterKilledUnderLoadFailsOverWithoutErrorsReachingCallers() {
        try (TestRedisSentinel sentinel = TestRedisSentinel.start()) {
            runner(sentinel).withUserConfiguration(ServiceConfiguration.class).run((context) -> {
                RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
                // The limiters' own connection (short timeout) must keep the sentinel configuration, or it
                // would stay on the dead master's address or fall back to localhost:6379.
                assertThat(((LettuceConnectionFactory) context.getBean(LimiterRedisConnection.class).template()
                    .getConnectionFactory()).isRedisSentinelAware()).as("limiters' connection uses the sentinels").isTrue();
                String prefix = context.getBean(LimiterProperties.class).getKeyPrefix();
                Service service = context.getBean(Service.class);
                String before = sentinel.master();
                // Bounded in time, not in calls, so that calls still run after a failover of several seconds.
                Load load = Load.lasting(service, 8, Duration.ofSeconds(60));
                load.start();
                load.awaitCalls(300);
                assertThat(keysOn(before, prefix + "*")).as("keys on the first master").isNotEmpty();

                long killed = System.nanoTime();
                sentinel.killMaster();
                String after = sentinel.awaitFailover(Duration.ofSeconds(20));
                Duration failover = Duration.ofNanos(System.nanoTime() - killed);
                while (!factory.isRedisAvailable() && System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(40)) {
                    Thread.sleep(20);
                }
                Duration backInRedis = Duration.ofNanos(System.nanoTime() - killed);
                int target = load.calls() + 300;
                load.awaitCalls(target);
                assertThat(load.calls()).as("calls after the failover").isGreaterThanOrEqualTo(target);
                // A key no one used before the kill: only a decision made on the new master can have written it.
                service.call("after-failover");
                load.stop();

                System.out.println("Sentinel failover: new master after " + failover.toMillis()
                        + " ms, limiters decide in Redis again after " + backInRedis.toMillis() + " ms");
                assertThat(after).isNotEqualTo(before);
                assertThat(load.unexpected).as("exceptions other than rejections").isEmpty();
                assertThat(factory.isRedisAvailable()).as("Redis decides again after the failover").isTrue();
                assertThat(keysOn(after, prefix + "*after-failover*")).as("keys on the new master " + after).isNotEmpty();
            });
        }
    }

    /** KEYS on one server, asked directly rather than through the sentinels. */
    private static Set<String> keysOn(String hostPort, String pattern) {
        int colon = hostPort.lastIndexOf(':');
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))));
        factory.afterPropertiesSet();
        factory.start();
        try {
            return new StringRedisTemplate(factory).keys(pattern);
        }
        finally {
            factory.destroy();
        }
    }

}
