package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterConfigurationFailureTests.failsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.entry;

import java.time.Duration;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.autoconfigure.actuate.ConcurrencyLimitDescriptor;
import dev.limiter.autoconfigure.actuate.InFlightDescriptor;
import dev.limiter.autoconfigure.actuate.LimiterActuatorAutoConfiguration;
import dev.limiter.autoconfigure.actuate.LimitersEndpoint;
import dev.limiter.autoconfigure.metrics.LimiterMetricsAutoConfiguration;
import dev.limiter.spring.RateLimited;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code limiter.concurrency-limits.<name>}: creates the limiter on the application's backend, which
 * {@code @RateLimited} methods of that name hold a slot of per call, with gauges of the slots in use; a
 * value that cannot work stops startup naming the property, the value and the fix.
 */
class ConcurrencyLimitsConfigurationTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, LimiterAutoConfiguration.class, LimiterMetricsAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory", "limiter.concurrency-limits.upstream.limit=1")
        .withUserConfiguration(UpstreamConfiguration.class);

    @Test
    void configuredValuesMakeTheLimiter() {
        this.contextRunner.withPropertyValues("limiter.concurrency-limits.upstream.lease=5s", "limiter.concurrency-limits.upstream.max-wait=20ms",
                "limiter.concurrency-limits.upstream.on-redis-failure=deny").run((context) -> {
                    ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiters.class).get("upstream");
                    assertThat(limiter.config()).isEqualTo(new ConcurrencyLimiterConfig(1, Duration.ofSeconds(5), Duration.ofMillis(20),
                            FailurePolicy.DENY));
                });
        this.contextRunner.run((context) -> assertThat(context.getBean(ConcurrencyLimiters.class).get("upstream").config())
            .isEqualTo(ConcurrencyLimiterConfig.of(1)));
    }

    @Test
    void anAnnotatedMethodHoldsASlotWhileItRunsAndTheGaugesShowIt() {
        this.contextRunner.run((context) -> {
            Upstream upstream = context.getBean(Upstream.class);
            ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiters.class).get("upstream");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("limiter.concurrency.limit").tag("limiter", "upstream").gauge().value()).isEqualTo(1);
            upstream.call("acme", () -> {
                assertThat(meters.get("limiter.concurrency.in.use").tag("limiter", "upstream").gauge().value()).isEqualTo(1);
                assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> upstream.call("acme", () -> { }));
            });
            assertThat(meters.get("limiter.concurrency.in.use").tag("limiter", "upstream").gauge().value()).isZero();
            try (Permit permit = limiter.acquire("acme")) {
                assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> upstream.call("acme", () -> { }))
                    .satisfies((ex) -> assertThat(ex.getDecision().limit()).isEqualTo(1));
            }
            // Two slots taken (the method's call, then acquire), two calls refused; each counted once, with the time it took.
            assertThat(meters.get("limiter.concurrency.decisions").tags("limiter", "upstream", "outcome", "allowed", "backend", "memory")
                .counter().count()).isEqualTo(2);
            assertThat(meters.get("limiter.concurrency.decisions").tags("limiter", "upstream", "outcome", "rejected", "backend", "memory")
                .counter().count()).isEqualTo(2);
            assertThat(meters.get("limiter.concurrency.wait").tags("limiter", "upstream", "outcome", "allowed").timer().count()
                + meters.get("limiter.concurrency.wait").tags("limiter", "upstream", "outcome", "rejected").timer().count())
                .as("every acquire timed").isEqualTo(4);
        });
    }

    /** The limiters endpoint lists concurrency limits, describes one, and reads a key's calls in flight; it changes none. */
    @Test
    void theEndpointShowsSlotsInUseAndAKeysCallsInFlight() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, LimiterActuatorAutoConfiguration.class))
            .withPropertyValues("limiter.concurrency-limits.upstream.limit=2", "limiter.concurrency-limits.upstream.lease=5s",
                    "management.endpoints.web.exposure.include=limiters")
            .run((context) -> {
                LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
                ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiters.class).get("upstream");
                try (Permit permit = limiter.acquire("acme/eu")) {
                    ConcurrencyLimitDescriptor described = new ConcurrencyLimitDescriptor(2, "PT5S", "PT0S", null, 1);
                    assertThat(endpoint.limiters().concurrencyLimits()).containsExactly(entry("upstream", described));
                    assertThat(endpoint.limiter("upstream")).isEqualTo(described);
                    assertThat(endpoint.quota("upstream", "acme", "eu")).isEqualTo(new InFlightDescriptor("upstream", "acme/eu", 2, 1, 1L, null));
                    assertThat(endpoint.quota("upstream", "other")).isEqualTo(new InFlightDescriptor("upstream", "other", 2, 0, 2L, null));
                }
                assertThat(endpoint.quota("upstream", "acme", "eu")).isEqualTo(new InFlightDescriptor("upstream", "acme/eu", 2, 0, 2L, null));
                assertThat(endpoint.limiter("nonesuch")).isNull();
            });
    }

    @Test
    void aLimitIsRequired() {
        this.contextRunner.withPropertyValues("limiter.concurrency-limits.upstream.limit=", "limiter.concurrency-limits.upstream.lease=5s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.concurrency-limits.upstream.limit");
                assertThat(analysis.getAction()).contains("Set limiter.concurrency-limits.upstream.limit");
            }));
    }

    @Test
    void aLeaseTooShortNamesTheProperty() {
        this.contextRunner.withPropertyValues("limiter.concurrency-limits.upstream.lease=10ms").run(failsWith((ex, analysis) -> {
            assertThat(ex.getWhere()).isEqualTo("limiter.concurrency-limits.upstream.lease");
            assertThat(analysis.getDescription()).contains("PT0.01S").contains("between PT0.1S and PT24H");
            assertThat(analysis.getAction()).contains("30s");
        }));
    }

    @Test
    void aNameOfBothARateAndAConcurrencyLimitIsAmbiguous() {
        this.contextRunner.withPropertyValues("limiter.limiters.upstream.limit=5", "limiter.limiters.upstream.window=1s")
            .run(failsWith((ex, analysis) -> {
                assertThat(ex.getWhere()).isEqualTo("limiter.concurrency-limits.upstream");
                assertThat(analysis.getAction()).contains("Rename one of them");
            }));
    }

    @Configuration(proxyBeanMethods = false)
    static class UpstreamConfiguration {

        @Bean
        Upstream upstream() {
            return new Upstream();
        }
    }

    static class Upstream {

        @RateLimited(name = "upstream", key = "#customer")
        public void call(String customer, Runnable inside) {
            inside.run();
        }
    }
}
