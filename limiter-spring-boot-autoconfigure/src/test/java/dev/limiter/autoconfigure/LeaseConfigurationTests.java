package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterConfigurationFailureTests.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code limiter.limiters.<name>.lease}: off unless set, carried into the limiter's configuration,
 * and a lease that cannot work stops startup naming the property, the value and the fix.
 */
class LeaseConfigurationTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withPropertyValues("limiter.limiters.orders.limit=100", "limiter.limiters.orders.window=1s",
                "limiter.limiters.orders.algorithm=token-bucket", "limiter.limiters.orders.burst=100",
                "limiter.limiters.orders.max-wait=0s");

    @Test
    void offByDefault() {
        this.contextRunner.run((context) -> {
            assertThat(context.getBean(RateLimiterRegistry.class).get("orders").config().lease()).isNull();
            assertThat(context.getBean(LimiterDefinitions.class).sources("orders")).containsEntry("lease", "default");
        });
    }

    @Test
    void permitsAndTtlMakeTheLimiterLease() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.lease.permits=10", "limiter.limiters.orders.lease.ttl=50ms")
            .run((context) -> {
                assertThat(context.getBean(RateLimiterRegistry.class).get("orders").config().lease())
                    .isEqualTo(new RateLimiterConfig.Lease(10, Duration.ofMillis(50)));
                assertThat(context.getBean(LimiterDefinitions.class).sources("orders")).containsEntry("lease", "limiter.limiters.orders.lease");
            });
    }

    @Test
    void aWindowAlgorithmCannotLease() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.algorithm=sliding-log", "limiter.limiters.orders.burst=",
                "limiter.limiters.orders.max-wait=", "limiter.limiters.orders.lease.permits=10", "limiter.limiters.orders.lease.ttl=50ms")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease");
                assertThat(analysis.getDescription()).contains("permits 10, ttl PT0.05S").contains("not to sliding-log");
                assertThat(analysis.getAction()).contains("Remove limiter.limiters.orders.lease").contains("token-bucket");
            }));
    }

    @Test
    void permitsWithoutTtl() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.lease.permits=10")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease.ttl");
                assertThat(analysis.getDescription()).contains("(not set)");
                assertThat(analysis.getAction()).contains("Set limiter.limiters.orders.lease.ttl");
            }));
    }

    @Test
    void zeroPermits() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.lease.permits=0", "limiter.limiters.orders.lease.ttl=50ms")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease.permits");
                assertThat(analysis.getDescription()).contains("value: 0");
                assertThat(analysis.getAction()).contains("at least 1");
            }));
    }

    @Test
    void zeroOrTooLongTtl() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.lease.permits=10", "limiter.limiters.orders.lease.ttl=0s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease.ttl");
                assertThat(analysis.getDescription()).contains("value: PT0S").contains("above 0");
                assertThat(analysis.getAction()).contains("50ms");
            }));
        this.contextRunner.withPropertyValues("limiter.limiters.orders.lease.permits=10", "limiter.limiters.orders.lease.ttl=2h")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease.ttl")));
    }

}
