package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.RateLimitInterceptionTests.OrderService;
import dev.limiter.spring.RateLimitInterceptionTests.OrdersConfiguration;
import dev.limiter.spring.RateLimitInterceptionTests.User;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Configuration;

/** Tests of {@code limiter.on-missing-key}: a key expression that yields null or empty text, in a plain Spring application ({@link EnableRateLimiting}). */
class MissingKeyTests {

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner()
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(OrdersConfiguration.class);

    @Test
    void rejectIsTheDefaultAndNamesTheLimiterAndExpression() {
        this.contextRunner.run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            assertThatExceptionOfType(MissingRateLimitKeyException.class).isThrownBy(() -> orders.list(new User(null)))
                .satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("orders"))
                .withMessageContaining("#user.id")
                .withMessageContaining("null");
            assertThatExceptionOfType(MissingRateLimitKeyException.class).isThrownBy(() -> orders.list(new User("")))
                .withMessageContaining("empty");
            assertThat(orders.calls()).isZero();
        });
    }

    @Test
    void skipOfTheAnnotationRunsTheCallWithoutLimiting() {
        this.contextRunner.withEnabling(SkipMissingKeys.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            for (int i = 0; i < 10; i++) {
                orders.list(new User(null));
            }
            assertThat(orders.calls()).isEqualTo(10);
            orders.list(new User("alice"));
            orders.list(new User("alice"));
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(new User("alice")));
        });
    }

    @Test
    void sharedOfTheAnnotationLimitsEveryKeylessCallUnderOneKey() {
        this.contextRunner.withEnabling(ShareMissingKeys.class).run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            orders.list(new User(null));
            orders.list(new User(""));
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(new User(null)));
            orders.list(new User("alice"));
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting(onMissingKey = MissingKeyPolicy.SKIP)
    static class SkipMissingKeys extends RateLimitingContextRunner.MemoryBackend {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting(onMissingKey = MissingKeyPolicy.SHARED)
    static class ShareMissingKeys extends RateLimitingContextRunner.MemoryBackend {
    }
}
