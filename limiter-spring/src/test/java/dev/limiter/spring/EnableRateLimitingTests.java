package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ClassUtils;

/** {@link EnableRateLimiting} in a plain Spring application: no Spring Boot, no properties, no metrics. */
class EnableRateLimitingTests {

    @Test
    void theAnnotationsOwnValuesLimitAndRejectWithoutCallingTheMethod() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(MemoryConfiguration.class)) {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.list("alice")).isEqualTo("orders of alice");
            assertThat(orders.list("alice")).isEqualTo("orders of alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice")).satisfies((ex) -> {
                assertThat(ex.getLimiterName()).isEqualTo("orders");
                Decision decision = ex.getDecision();
                assertThat(decision.limit()).isEqualTo(2);
                assertThat(decision.remaining()).isZero();
                // Token bucket of 2 per minute: one token every 30 s, and the virtual clock stands still.
                assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(30));
            });
            assertThat(orders.calls()).isEqualTo(2);
            context.getBean(VirtualClock.class).advance(Duration.ofSeconds(30));
            assertThat(orders.list("alice")).isEqualTo("orders of alice");
        }
    }

    @Test
    void eachKeyHasItsOwnLimit() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(MemoryConfiguration.class)) {
            Orders orders = context.getBean(Orders.class);
            orders.list("alice");
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"));
            assertThat(orders.list("bob")).isEqualTo("orders of bob");
        }
    }

    @Test
    void everyValueOfTheAnnotationDefinesTheLimiter() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(MemoryConfiguration.class)) {
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            assertThat(registry.names()).contains("orders", "uploads", "reports", "bursty");
            RateLimiter reports = registry.get("reports");
            assertThat(reports.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
            assertThat(reports.limits()).containsExactly(LimitSpec.of(10, Duration.ofSeconds(1)), LimitSpec.of(1000, Duration.ofHours(1)));
            assertThat(reports.config().subWindows()).isEqualTo(4);
            RateLimiter bursty = registry.get("bursty");
            assertThat(bursty.algorithm()).isEqualTo(Algorithm.GCRA);
            assertThat(bursty.limits()).containsExactly(new LimitSpec(5, Duration.ofSeconds(10), 8));
            assertThat(bursty.config().maxWait()).isEqualTo(Duration.ofMillis(250));
        }
    }

    @Test
    void theCostExpressionTakesSeveralPermits() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(MemoryConfiguration.class)) {
            Orders orders = context.getBean(Orders.class);
            orders.upload("alice", 3);
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.upload("alice", 3))
                .satisfies((ex) -> assertThat(ex.getDecision().remaining()).isEqualTo(2));
            orders.upload("alice", 2);
        }
    }

    @Test
    void aBadAttributeStopsStartupNamingItTheValueAndTheFix() {
        assertThat(startupFailure(BadWindowConfiguration.class)).isInstanceOfSatisfying(LimiterConfigurationException.class, (ex) -> {
            assertThat(ex.getWhere()).isEqualTo("@RateLimited(window) on BadWindow.call()");
            assertThat(ex.getValue()).isEqualTo("\"10 parsecs\"");
            assertThat(ex.getMessage()).isEqualTo("Not a duration (@RateLimited(window) on BadWindow.call() = \"10 parsecs\"). "
                    + "Write a duration such as \"10s\", \"500ms\", \"1h\" or \"PT10S\"");
        });
    }

    @Test
    void anAnnotationWithoutALimitStopsStartup() {
        assertThat(startupFailure(NoLimitConfiguration.class)).isInstanceOfSatisfying(LimiterConfigurationException.class, (ex) -> {
            assertThat(ex.getWhere()).isEqualTo("@RateLimited(limit) on NoLimit.call()");
            assertThat(ex.getMessage()).contains("Limiter 'unset' used by @RateLimited on NoLimit.call() has no limit")
                .contains("Set limit and window, or limits, in the annotation");
        });
    }

    @Test
    void twoAnnotationsGivingOneLimiterOtherValuesStopStartup() {
        assertThat(startupFailure(ConflictConfiguration.class)).isInstanceOfSatisfying(LimiterConfigurationException.class, (ex) -> {
            assertThat(ex.getMessage()).contains("Limiter 'shared' is already defined as")
                .contains("Give every @RateLimited(name = \"shared\") the same values");
        });
    }

    @Test
    void aPlanNeedsTheConfigurationOfSpringBoot() {
        assertThat(startupFailure(PlanConfiguration.class)).isInstanceOfSatisfying(LimiterConfigurationException.class, (ex) -> {
            assertThat(ex.getWhere()).isEqualTo("@RateLimited(plan) on Planned.call(String)");
            assertThat(ex.getMessage()).contains("Limiter 'planned' has no plans to pick from");
        });
    }

    @Test
    void needsNoMetricsAndNoSpringBoot() {
        assertThat(ClassUtils.isPresent("org.springframework.boot.SpringApplication", null)).isFalse();
        assertThat(ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", null)).isFalse();
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(MemoryConfiguration.class)) {
            assertThat(context.getBean(Orders.class).list("alice")).isEqualTo("orders of alice");
        }
    }

    @Test
    void limitsOnRedisWithTheApplicationsRedisFactory() {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(TestRedis.shared().host(), TestRedis.shared().port()));
        connections.afterPropertiesSet();
        connections.start();
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            StringRedisTemplate redis = new StringRedisTemplate(connections);
            context.registerBean(RateLimiterFactory.class,
                    () -> RedisRateLimiterFactory.builder(redis).keyPrefix("plain-" + UUID.randomUUID()).build());
            context.register(RedisConfiguration.class);
            context.refresh();
            Orders orders = context.getBean(Orders.class);
            orders.list("alice");
            orders.list("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list("alice"))
                .satisfies((ex) -> assertThat(ex.getDecision().limit()).isEqualTo(2));
            assertThat(orders.calls()).isEqualTo(2);
        }
        finally {
            connections.destroy();
        }
    }

    /** The failure that stopped the context, unwrapped from Spring's bean creation exceptions. */
    private static Throwable startupFailure(Class<?> configuration) {
        Throwable failure = null;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(configuration)) {
            // Started: no failure.
        }
        catch (BeanCreationException ex) {
            failure = ex;
            while (failure instanceof BeanCreationException && failure.getCause() != null) {
                failure = failure.getCause();
            }
        }
        assertThat(failure).as("startup failure").isNotNull();
        return failure;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class MemoryConfiguration {

        @Bean
        VirtualClock clock() {
            return new VirtualClock();
        }

        @Bean
        RateLimiterFactory rateLimiterFactory(VirtualClock clock) {
            return InMemoryRateLimiterFactory.builder().clock(clock).build();
        }

        /** The application's own registry, which the limited methods then share: the test reads it. */
        @Bean
        RateLimiterRegistry rateLimiterRegistry(RateLimiterFactory factory) {
            return new RateLimiterRegistry(factory);
        }

        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class RedisConfiguration {

        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    static class Orders {

        private final AtomicInteger calls = new AtomicInteger();

        int calls() {
            return calls.get();
        }

        @RateLimited(name = "orders", key = "#user", limit = 2, window = "1m")
        public String list(String user) {
            calls.incrementAndGet();
            return "orders of " + user;
        }

        @RateLimited(name = "uploads", key = "#user", cost = "#size", limit = 5, window = "1h")
        public void upload(String user, int size) {
        }

        @RateLimited(name = "reports", algorithm = Algorithm.SLIDING_WINDOW, limits = { "10/1s", "1000/1h" }, subWindows = 4)
        public void report() {
        }

        @RateLimited(name = "bursty", algorithm = Algorithm.GCRA, limit = 5, window = "10s", burst = 8, maxWait = "250ms")
        public void burst() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class BadWindowConfiguration extends MemoryConfiguration {

        @Bean
        BadWindow badWindow() {
            return new BadWindow();
        }
    }

    static class BadWindow {

        @RateLimited(name = "bad", limit = 5, window = "10 parsecs")
        public void call() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class NoLimitConfiguration extends MemoryConfiguration {

        @Bean
        NoLimit noLimit() {
            return new NoLimit();
        }
    }

    static class NoLimit {

        @RateLimited(name = "unset", window = "10s")
        public void call() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class ConflictConfiguration extends MemoryConfiguration {

        @Bean
        Conflicting conflicting() {
            return new Conflicting();
        }
    }

    static class Conflicting {

        @RateLimited(name = "shared", limit = 5, window = "10s")
        public void one() {
        }

        @RateLimited(name = "shared", limit = 6, window = "10s")
        public void other() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class PlanConfiguration extends MemoryConfiguration {

        @Bean
        Planned planned() {
            return new Planned();
        }
    }

    static class Planned {

        @RateLimited(name = "planned", plan = "#tier", limit = 5, window = "10s")
        public void call(String tier) {
        }
    }
}
