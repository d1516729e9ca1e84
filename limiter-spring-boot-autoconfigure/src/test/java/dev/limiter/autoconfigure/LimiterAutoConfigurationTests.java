package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;
import dev.limiter.spring.internal.interceptor.RateLimitedAdvisingPostProcessor;
import dev.limiter.test.RedisTest;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Tests of {@link LimiterAutoConfiguration}: which backend is chosen, and when the user's beans or settings win. */
@RedisTest
class LimiterAutoConfigurationTests {

    private final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class));

    @Test
    void autoBackendUsesRedisWhenARedisConnectionFactoryExists() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
            .run((context) -> {
                assertThat(context).hasSingleBean(RedisConnectionFactory.class);
                assertThat(context).hasSingleBean(RateLimiterFactory.class);
                assertThat(context).hasSingleBean(RedisRateLimiterFactory.class);
                assertThat(context).hasSingleBean(RateLimiterRegistry.class);
            });
    }

    @Test
    void autoBackendUsesMemoryWithoutARedisConnectionFactory() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasSingleBean(RateLimiterFactory.class);
            assertThat(context).hasSingleBean(InMemoryRateLimiterFactory.class);
            assertThat(context).hasSingleBean(RateLimiterRegistry.class);
        });
    }

    @Test
    void autoBackendUsesMemoryWithoutSpringBootDataRedis() {
        // spring-boot-data-redis is an optional dependency of this module.
        this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
            .run((context) -> assertThat(context).hasSingleBean(InMemoryRateLimiterFactory.class));
    }

    @Test
    void memoryBackendIsUsedEvenWhenRedisExists() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
            .withPropertyValues("limiter.backend=memory")
            .run((context) -> {
                assertThat(context).hasSingleBean(RedisConnectionFactory.class);
                assertThat(context).hasSingleBean(InMemoryRateLimiterFactory.class);
                assertThat(context).doesNotHaveBean(RedisRateLimiterFactory.class);
            });
    }

    @Test
    void redisBackendIsUsedWhenRedisExists() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
            .withPropertyValues("limiter.backend=REDIS")
            .run((context) -> assertThat(context).hasSingleBean(RedisRateLimiterFactory.class));
    }

    @Test
    void redisBackendWithoutRedisFailsNamingThePropertyAndTheFix() {
        this.contextRunner.withPropertyValues("limiter.backend=redis").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context).getFailure().rootCause().isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("limiter.backend")
                .hasMessageContaining("RedisConnectionFactory")
                .hasMessageContaining("spring-boot-starter-data-redis");
            FailureAnalysis analysis = new LimiterConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("limiter.backend").contains("redis");
            assertThat(analysis.getAction()).contains("spring.data.redis").contains("limiter.backend=auto or memory");
        });
    }

    @Test
    void userDefinedFactoryWinsOverRedis() {
        CountingFactory factory = new CountingFactory();
        this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
            .withBean(RateLimiterFactory.class, () -> factory)
            .withUserConfiguration(LimitedConfiguration.class)
            .run((context) -> {
                assertThat(context).hasSingleBean(RateLimiterFactory.class);
                assertThat(context).doesNotHaveBean(RedisRateLimiterFactory.class);
                assertThat(context).doesNotHaveBean(InMemoryRateLimiterFactory.class);
                assertThat(context.getBean(RateLimiterFactory.class)).isSameAs(factory);
                assertThat(factory.created).hasValue(1);
            });
    }

    @Test
    void userDefinedFactoryWinsOverMemory() {
        this.contextRunner.withBean(RateLimiterFactory.class, CountingFactory::new)
            .run((context) -> {
                assertThat(context).hasSingleBean(RateLimiterFactory.class);
                assertThat(context).doesNotHaveBean(InMemoryRateLimiterFactory.class);
            });
    }

    @Test
    void userDefinedRegistryWins() {
        RateLimiterRegistry registry = new RateLimiterRegistry(new InMemoryRateLimiterFactory());
        this.contextRunner.withBean(RateLimiterRegistry.class, () -> registry)
            .withUserConfiguration(LimitedConfiguration.class)
            .run((context) -> {
                assertThat(context).hasSingleBean(RateLimiterRegistry.class);
                assertThat(context.getBean(RateLimiterRegistry.class)).isSameAs(registry);
                // The annotated method's limiter lives in the user's registry.
                assertThat(registry.find("limited")).isPresent();
            });
    }

    @Test
    void disabledCreatesNoLimiterBeansAndLeavesMethodsUnlimited() {
        this.contextRunner.withPropertyValues("limiter.enabled=false")
            .withUserConfiguration(LimitedConfiguration.class)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(RateLimiterFactory.class);
                assertThat(context).doesNotHaveBean(RateLimiterRegistry.class);
                assertThat(context).doesNotHaveBean(LimiterProperties.class);
                assertThat(context).doesNotHaveBean(RateLimitedAdvisingPostProcessor.class);
                LimitedService service = context.getBean(LimitedService.class);
                for (int i = 0; i < 5; i++) {
                    service.call();
                }
                assertThat(service.calls).hasValue(5);
            });
    }

    @Test
    void enabledLimitsAnnotatedMethods() {
        this.contextRunner.withUserConfiguration(LimitedConfiguration.class).run((context) -> {
            LimitedService service = context.getBean(LimitedService.class);
            service.call();
            assertThat(context.getBean(RateLimiterRegistry.class).get("limited").tryAcquire("").rejected()).isTrue();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class LimitedConfiguration {

        @Bean
        LimitedService limitedService() {
            return new LimitedService();
        }

    }

    static class LimitedService {

        final AtomicInteger calls = new AtomicInteger();

        @RateLimited(name = "limited", limit = 1, window = "1h")
        public void call() {
            this.calls.incrementAndGet();
        }

    }

    /** Creates in-memory limiters and counts them, to show that the registry uses this factory. */
    static class CountingFactory implements RateLimiterFactory {

        final AtomicInteger created = new AtomicInteger();

        private final InMemoryRateLimiterFactory delegate = new InMemoryRateLimiterFactory();

        @Override
        public RateLimiter create(String name, RateLimiterConfig config) {
            this.created.incrementAndGet();
            return this.delegate.create(name, config);
        }

    }

}
