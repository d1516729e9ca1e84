package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.limiter.RateLimitExceededException;
import dev.limiter.autoconfigure.ConfiguredLimitsOverAnnotationTests.OrderService;
import dev.limiter.autoconfigure.ConfiguredLimitsOverAnnotationTests.OrdersConfiguration;
import dev.limiter.autoconfigure.ConfiguredLimitsOverAnnotationTests.User;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Tests of {@code limiter.on-missing-key}: a key expression that yields null or empty text: what Spring Boot's properties change (the interception itself is tested in limiter-spring). */
class OnMissingKeyPropertyTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(OrdersConfiguration.class);

    @Test
    void skipRunsTheCallWithoutLimiting() {
        this.contextRunner.withPropertyValues("limiter.on-missing-key=skip").run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            for (int i = 0; i < 10; i++) {
                orders.list(new User(null));
            }
            assertThat(orders.calls()).isEqualTo(10);
            // Calls with a key are limited as before (2 per minute).
            orders.list(new User("alice"));
            orders.list(new User("alice"));
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(new User("alice")));
        });
    }

    @Test
    void sharedLimitsEveryKeylessCallUnderOneKey() {
        this.contextRunner.withPropertyValues("limiter.on-missing-key=shared").run((context) -> {
            OrderService orders = context.getBean(OrderService.class);
            orders.list(new User(null));
            orders.list(new User(""));
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.list(new User(null)));
            // A user with a key has a limit of its own.
            orders.list(new User("alice"));
        });
    }
}
