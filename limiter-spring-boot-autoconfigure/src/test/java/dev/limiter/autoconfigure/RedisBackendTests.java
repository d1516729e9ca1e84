package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Tests of {@code @RateLimited} methods on the Redis backend, against the real test Redis. */
@RedisTest
class RedisBackendTests {

    /** Per test (JUnit makes an instance per test), so tests never share limiter state. */
    private final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(OrdersConfiguration.class);

    @Test
    void callsKeepTheirStateInRedisUnderTheKeyPrefix() {
        this.contextRunner.run((context) -> {
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            OrderService orders = context.getBean(OrderService.class);
            orders.list("alice");
            orders.list("bob");
            // <prefix>:{<limiter>:<key>}...: one hash tag per decision (Redis Cluster).
            assertThat(redis.keys(this.keyPrefix + ":{orders:*")).hasSize(2)
                .anySatisfy((key) -> assertThat(key).startsWith(this.keyPrefix + ":{orders:alice}"))
                .anySatisfy((key) -> assertThat(key).startsWith(this.keyPrefix + ":{orders:bob}"))
                .allSatisfy((key) -> assertThat(redis.getExpire(key)).isPositive());
        });
    }

    @Test
    void instancesCountEachOtherThroughAHeartbeatKeyWithATtl() {
        this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
            StringRedisTemplate redis = first.getBean(StringRedisTemplate.class);
            String heartbeats = this.keyPrefix + ":{instances}";
            assertThat(redis.opsForZSet().size(heartbeats)).isEqualTo(2);
            assertThat(redis.getExpire(heartbeats)).isPositive().isLessThanOrEqualTo(15);
            // The second counted both at startup; the first counts both from its next heartbeat on.
            assertThat(second.getBean(RedisRateLimiterFactory.class).instances()).isEqualTo(2);
            second.close();
            assertThat(redis.opsForZSet().size(heartbeats)).as("an instance that stops leaves the count").isEqualTo(1);
        }));
    }

    @Test
    void aClientCustomizerShapesTheLimitersOwnConnection() {
        this.contextRunner.withBean("named", LimiterRedisClientCustomizer.class, () -> (builder) -> builder.clientName("limiters"))
            .run((context) -> {
                LimiterRedisConnection connection = context.getBean(LimiterRedisConnection.class);
                assertThat(connection.clientConfiguration().getClientName()).hasValue("limiters");
                // Limiter's own settings stay: decisions still time out as limiter.redis.timeout says.
                assertThat(connection.clientConfiguration().getClientOptions()).hasValueSatisfying(
                        (options) -> assertThat(options.getTimeoutOptions().isTimeoutCommands()).isTrue());
                OrderService orders = context.getBean(OrderService.class);
                orders.list("alice");
                assertThat(context.getBean(RedisRateLimiterFactory.class).isRedisAvailable()).isTrue();
            });
    }

    @Test
    void theInstanceCountCanBeConfiguredInstead() {
        this.contextRunner.withPropertyValues("limiter.redis.expected-instances=4").run((context) -> {
            RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
            assertThat(factory.instances()).isEqualTo(4);
            assertThat(factory.isInstanceCountConfigured()).isTrue();
        });
    }

    @Test
    void badRedisSettingsFailStartupNamingTheProperty() {
        this.contextRunner.withPropertyValues("limiter.redis.outage-after=-1s")
            .run(LimiterConfigurationFailureTests.failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.redis.outage-after");
                assertThat(analysis.getAction()).contains("1s");
            }));
        this.contextRunner.withPropertyValues("limiter.redis.heartbeat-interval=0s")
            .run(LimiterConfigurationFailureTests.failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.redis.heartbeat-interval")));
        this.contextRunner.withPropertyValues("limiter.redis.expected-instances=0")
            .run(LimiterConfigurationFailureTests.failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.redis.expected-instances");
                assertThat(analysis.getAction()).contains("count them by heartbeat");
            }));
    }

    @Test
    void memoryBackendWritesNothingToRedis() {
        this.contextRunner.withPropertyValues("limiter.backend=memory").run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            orders.list("alice");
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"));
            assertThat(context.getBean(StringRedisTemplate.class).keys(this.keyPrefix + ":*")).isEmpty();
        });
    }

    @Test
    void limitIsReachedAndAdvancingTheClockRefills() {
        this.contextRunner.run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            VirtualClock clock = context.getBean(VirtualClock.class);
            orders.list("alice");
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"))
                .satisfies((ex) -> {
                    assertThat(ex.getLimiterName()).isEqualTo("orders");
                    assertThat(ex.getDecision().limit()).isEqualTo(2);
                    assertThat(ex.getDecision().retryAfter()).isEqualTo(Duration.ofSeconds(30));
                });
            clock.advance(Duration.ofSeconds(30));
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"));
        });
    }

    @Test
    void instancesWithTheSameKeyPrefixShareOneLimit() {
        this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
            first.getBean(OrderService.class).list("alice");
            second.getBean(OrderService.class).list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> first.getBean(OrderService.class).list("alice"));
        }));
    }

    @Test
    void localDenyCacheRejectsUntilTheRetryAfterWithoutAskingRedis() {
        this.contextRunner.withPropertyValues("limiter.local-deny-cache.enabled=true").run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            VirtualClock clock = context.getBean(VirtualClock.class);
            orders.list("alice");
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"));
            // With alice's state gone from Redis, only the remembered rejection can still reject her.
            redis.delete(redis.keys(this.keyPrefix + ":*"));
            clock.advance(Duration.ofSeconds(29));
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"))
                .satisfies((ex) -> assertThat(ex.getDecision().retryAfter()).isEqualTo(Duration.ofSeconds(1)));
            assertThat(redis.keys(this.keyPrefix + ":*")).isEmpty();
            clock.advance(Duration.ofSeconds(1));
            orders.list("alice");
            assertThat(redis.keys(this.keyPrefix + ":*")).hasSize(1);
        });
    }

    @Test
    void withoutTheLocalDenyCacheRedisDecidesEveryCall() {
        this.contextRunner.run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            orders.list("alice");
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"));
            redis.delete(redis.keys(this.keyPrefix + ":*"));
            orders.list("alice");
        });
    }

    @Test
    void batchingIsOffUnlessEnabled() {
        this.contextRunner.run((context) -> assertThat(context.getBean(RedisRateLimiterFactory.class).isBatching()).isFalse());
    }

    @Test
    void batchingEnabledTurnsItOnAndLimitsAsBefore() {
        this.contextRunner.withPropertyValues("limiter.redis.batching.enabled=true", "limiter.redis.batching.max-size=16").run((context) -> {
            assertThat(context.getBean(RedisRateLimiterFactory.class).isBatching()).isTrue();
            OrderService orders = context.getBean(OrderService.class);
            orders.list("alice");
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"));
        });
    }

    /**
     * With Reactor on the classpath, reactive decisions are batched too: 64 asked at once on one key of
     * 5 per minute admit exactly 5, all decided by Redis, in fewer script calls than decisions.
     */
    @Test
    void batchingEnabledBatchesReactiveDecisionsToo() {
        this.contextRunner.withPropertyValues("limiter.redis.batching.enabled=true").run((context) -> {
            RateLimiter limiter = context.getBean(RedisRateLimiterFactory.class)
                .create("reactive", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofMinutes(1)));
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            long before = scriptCalls(redis);
            List<CompletableFuture<Decision>> asked = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                asked.add(limiter.tryAcquireAsync("alice").toCompletableFuture());
            }
            List<Decision> decided = new ArrayList<>();
            for (CompletableFuture<Decision> decision : asked) {
                decided.add(decision.get(10, TimeUnit.SECONDS));
            }
            assertThat(decided).extracting(Decision::source).containsOnly(DecisionSource.REDIS);
            assertThat(decided).filteredOn(Decision::allowed).hasSize(5);
            assertThat(scriptCalls(redis) - before).as("scripts Redis ran for 64 decisions").isLessThan(48);
        });
    }

    /** Scripts the test Redis has run (EVALSHA and EVAL), from INFO commandstats. */
    private static long scriptCalls(StringRedisTemplate redis) {
        Properties stats = redis.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
        long calls = 0;
        for (String command : List.of("cmdstat_evalsha", "cmdstat_eval")) {
            String line = (stats != null) ? stats.getProperty(command) : null;
            if (line != null) {
                calls += Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',', line.indexOf("calls="))));
            }
        }
        return calls;
    }

    @Test
    void batchingWithoutRoomFailsStartup() {
        this.contextRunner.withPropertyValues("limiter.redis.batching.enabled=true", "limiter.redis.batching.max-size=0")
            .run((context) -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = new LimiterConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("limiter.redis.batching.max-size").contains("value: 0");
                assertThat(analysis.getAction()).contains("64");
            });
    }

    @Test
    void localDenyCacheWithoutRoomFailsStartup() {
        this.contextRunner.withPropertyValues("limiter.local-deny-cache.enabled=true", "limiter.local-deny-cache.max-keys=0")
            .run((context) -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = new LimiterConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("limiter.local-deny-cache.max-keys").contains("value: 0");
                assertThat(analysis.getAction()).contains("10000");
            });
    }

    @Test
    void keyPrefixWithABraceFailsStartup() {
        this.contextRunner.withPropertyValues("limiter.key-prefix=app{1}").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context).getFailure().rootCause().isInstanceOf(LimiterConfigurationException.class);
            FailureAnalysis analysis = new LimiterConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("limiter.key-prefix").contains("app{1}").contains("'{'");
            assertThat(analysis.getAction()).contains("'myapp:limiter'");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {

        @Bean
        OrderService orderService() {
            return new OrderService();
        }

    }

    static class OrderService {

        @RateLimited(name = "orders", key = "#customer", limit = 2, window = "1m")
        public void list(String customer) {
        }

    }

}
