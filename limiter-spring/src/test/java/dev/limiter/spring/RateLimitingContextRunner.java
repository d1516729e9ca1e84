package dev.limiter.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.UUID;
import java.util.function.Supplier;

import dev.limiter.DecisionListener;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.TestRedis;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * Starts a plain Spring context (no Spring Boot) with {@link EnableRateLimiting} and the beans of a
 * test, runs the test against it and closes it: the interception tested as an application without
 * Boot uses it. Limiters are in memory, on the {@link LimiterClock} bean if the test declares one, and
 * tell the test's {@link DecisionListener} bean of their decisions; or on the test's own
 * {@link RateLimiterFactory} bean; or on a real Redis ({@link #onRedis()}).
 */
final class RateLimitingContextRunner {

    private final List<Consumer<AnnotationConfigApplicationContext>> setup;

    RateLimitingContextRunner() {
        this(List.of((context) -> context.register(EnabledByDefault.class)));
    }

    private RateLimitingContextRunner(List<Consumer<AnnotationConfigApplicationContext>> setup) {
        this.setup = setup;
    }

    /** Limiters on the shared test Redis (blocking and reactive), under a key prefix of this context's own. */
    RateLimitingContextRunner onRedis() {
        return withEnabling(EnabledOnRedis.class);
    }

    /** Turns limiting on with {@code enabling} (a configuration annotated {@code @EnableRateLimiting(...)}) instead of the defaults. */
    RateLimitingContextRunner withEnabling(Class<?> enabling) {
        List<Consumer<AnnotationConfigApplicationContext>> steps = new ArrayList<>(setup);
        steps.set(0, (context) -> context.register(enabling));
        return new RateLimitingContextRunner(steps);
    }

    RateLimitingContextRunner withUserConfiguration(Class<?>... configurations) {
        return with((context) -> context.register(configurations));
    }

    <T> RateLimitingContextRunner withBean(Class<T> type, Supplier<T> supplier) {
        return with((context) -> context.registerBean(type, supplier));
    }

    <T> RateLimitingContextRunner withBean(String name, Class<T> type, Supplier<T> supplier) {
        return with((context) -> context.registerBean(name, type, supplier));
    }

    private RateLimitingContextRunner with(Consumer<AnnotationConfigApplicationContext> step) {
        List<Consumer<AnnotationConfigApplicationContext>> steps = new ArrayList<>(setup);
        steps.add(step);
        return new RateLimitingContextRunner(steps);
    }

    /** Runs {@code test} on the started context, or on the failure that stopped it. */
    void run(ContextTest test) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        setup.forEach((step) -> step.accept(context));
        Throwable failure = null;
        try {
            context.refresh();
        }
        catch (RuntimeException ex) {
            failure = ex;
        }
        try {
            test.accept(new Started(context, failure));
        }
        catch (RuntimeException | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            throw new AssertionError(ex);
        }
        finally {
            context.close();
        }
    }

    /** A test of a started context. */
    @FunctionalInterface
    interface ContextTest {

        void accept(Started context) throws Throwable;
    }

    /** The context a test runs on, and what stopped it, if anything did. */
    record Started(AnnotationConfigApplicationContext context, @Nullable Throwable startupFailure) {

        <T> T getBean(Class<T> type) {
            if (startupFailure != null) {
                throw new AssertionError("The context failed to start", startupFailure);
            }
            return context.getBean(type);
        }

        <T> T getBean(String name, Class<T> type) {
            if (startupFailure != null) {
                throw new AssertionError("The context failed to start", startupFailure);
            }
            return context.getBean(name, type);
        }

        /** What stopped the context; fails the test if it started. */
        Throwable getStartupFailure() {
            if (startupFailure == null) {
                throw new AssertionError("The context started");
            }
            return startupFailure;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class EnabledByDefault extends MemoryBackend {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class EnabledOnRedis {

        @Bean(destroyMethod = "destroy")
        LettuceConnectionFactory limiterRedisConnections() {
            TestRedis redis = TestRedis.shared();
            // Generous: these tests are about when decisions are made, not about a slow machine.
            LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
            connections.afterPropertiesSet();
            connections.start();
            return connections;
        }

        @Bean
        RateLimiterRegistry rateLimiterRegistry(LettuceConnectionFactory connections, ObjectProvider<LimiterClock> clock,
                ObjectProvider<DecisionListener> listener) {
            RedisRateLimiterFactory.Builder factory = RedisRateLimiterFactory.builder(new StringRedisTemplate(connections))
                .reactiveRedis(new ReactiveStringRedisTemplate(connections))
                .keyPrefix("limiter-test-" + UUID.randomUUID())
                .listener(listener.getIfAvailable(() -> DecisionListener.NONE));
            clock.ifAvailable(factory::clock);
            return new RateLimiterRegistry(factory.build());
        }

        /** Where CompletionStage methods run once decided, named as Spring Boot names its threads. */
        @Bean
        ThreadPoolTaskExecutor applicationTaskExecutor() {
            ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
            executor.setThreadNamePrefix("task-");
            executor.setCorePoolSize(8);
            return executor;
        }
    }

    /** Limiters in memory, unless the test has a factory of its own; one registry the test can read. */
    @Configuration(proxyBeanMethods = false)
    static class MemoryBackend {

        @Bean
        RateLimiterRegistry rateLimiterRegistry(ObjectProvider<RateLimiterFactory> factory, ObjectProvider<LimiterClock> clock,
                ObjectProvider<DecisionListener> listener) {
            return new RateLimiterRegistry(factory.getIfAvailable(() -> InMemoryRateLimiterFactory.builder()
                .clock(clock.getIfAvailable(LimiterClock::system)).listener(listener.getIfAvailable(() -> DecisionListener.NONE)).build()));
        }
    }
}
