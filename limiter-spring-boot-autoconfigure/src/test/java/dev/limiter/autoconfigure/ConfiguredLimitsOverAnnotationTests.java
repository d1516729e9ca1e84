package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Tests of limits configured under limiter.limiters over the values of {@code @RateLimited}: what Spring Boot's properties change (the interception itself is tested in limiter-spring). */
class ConfiguredLimitsOverAnnotationTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withBean(VirtualClock.class, VirtualClock::new);

    @Test
    void configuredLimitOverridesTheAnnotation() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class)
            .withPropertyValues("limiter.limiters.orders.limit=3")
            .run((context) -> {
                OrderService orders = context.getBean(OrderService.class);
                User alice = new User("alice");
                for (int i = 0; i < 3; i++) {
                    orders.list(alice);
                }
                assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(alice))
                    .satisfies((ex) -> assertThat(ex.getDecision().limit()).isEqualTo(3));
                RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("orders");
                assertThat(limiter.limits()).containsExactly(LimitSpec.of(3, Duration.ofMinutes(1)));
            });
    }

    @Test
    void configuredLimitAndWindowOverrideTheAnnotationWhoseAlgorithmStillApplies() {
        this.contextRunner.withUserConfiguration(ReportsConfiguration.class)
            .withPropertyValues("limiter.limiters.reports.limit=3", "limiter.limiters.reports.window=10s")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("reports");
                assertThat(limiter.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
                assertThat(limiter.limits()).containsExactly(LimitSpec.of(3, Duration.ofSeconds(10)));
            });
    }

    @Test
    void configuredLimitAndWindowKeepTheAnnotationsBurst() {
        this.contextRunner.withUserConfiguration(ReportsConfiguration.class)
            .withPropertyValues("limiter.limiters.bursty.limit=3", "limiter.limiters.bursty.window=10s")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("bursty");
                assertThat(limiter.limits()).containsExactly(new LimitSpec(3, Duration.ofSeconds(10), 6));
            });
    }

    @Test
    void configuredAlgorithmOverridesTheAnnotation() {
        this.contextRunner.withUserConfiguration(ReportsConfiguration.class)
            .withPropertyValues("limiter.limiters.reports.algorithm=token-bucket")
            .run((context) -> {
                RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("reports");
                assertThat(limiter.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
                assertThat(limiter.limits()).containsExactly(LimitSpec.of(2, Duration.ofMinutes(1)));
            });
    }

    record User(String id) {
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {

        @Bean
        OrderService orderService() {
            return new OrderService();
        }

        @Bean
        Tenants tenants() {
            return new Tenants();
        }

    }

    static class OrderService {

        private final AtomicInteger calls = new AtomicInteger();

        /** Calls that reached the method; a field read on the class proxy would see the proxy's own field. */
        public int calls() {
            return this.calls.get();
        }

        @RateLimited(name = "orders", key = "#user.id", limit = 2, window = "1m")
        public String list(User user) {
            this.calls.incrementAndGet();
            return "orders of " + user.id();
        }

        @RateLimited(name = "by-index", key = "#p0", limit = 1, window = "1m")
        public void byIndex(String customer) {
        }

        @RateLimited(name = "by-tenant", key = "@tenants.of(#region)", limit = 1, window = "1m")
        public void byTenant(String region) {
        }

        @RateLimited(name = "shared", limit = 2, window = "1m")
        public void shared(String caller) {
        }

        @RateLimited(name = "export", key = "#user.id", limit = 5, window = "1m", cost = "#rows")
        public void export(User user, int rows) {
            this.calls.incrementAndGet();
        }

    }

    static class Tenants {

        public String of(String region) {
            return region.equals("asia") ? "globex" : "acme";
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ReportsConfiguration {

        @Bean
        ReportService reportService() {
            return new ReportService();
        }

    }

    static class ReportService {

        @RateLimited(name = "reports", algorithm = Algorithm.FIXED_WINDOW, limit = 2, window = "1m")
        public void daily() {
        }

        @RateLimited(name = "bursty", limit = 2, window = "1m", burst = 6)
        public void burst() {
        }

    }

}
