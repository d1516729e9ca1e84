package dev.limiter.autoconfigure.metrics;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.autoconfigure.ConcurrencyLimiters;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.redis.RedisRateLimiterFactory;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics and observations of rate limit decisions, when the application has a
 * {@link MeterRegistry} (Spring Boot's actuator or Micrometer metrics starter):
 * {@code limiter.decisions}, {@code limiter.redis.duration}, {@code limiter.failure.policy.active},
 * {@code limiter.concurrency.in.use}, {@code limiter.concurrency.limit} and the {@code limiter.decision} observation.
 */
@AutoConfiguration(before = LimiterAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
                "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "limiter.enabled", matchIfMissing = true)
public final class LimiterMetricsAutoConfiguration {

    /** Gauge: 1 while Redis limiters follow their failure policy, 0 while Redis decides. */
    static final String FAILURE_POLICY_ACTIVE = "limiter.failure.policy.active";

    @Bean
    @ConditionalOnMissingBean
    MicrometerDecisionListener limiterDecisionListener(MeterRegistry meters, ObjectProvider<ObservationRegistry> observations) {
        return new MicrometerDecisionListener(meters, observations.getIfAvailable(() -> ObservationRegistry.NOOP));
    }

    /** Gauge per concurrency limit: slots this instance holds now. */
    static final String CONCURRENCY_IN_USE = "limiter.concurrency.in.use";

    /** Gauge per concurrency limit: its limit of calls in flight per key. */
    static final String CONCURRENCY_LIMIT = "limiter.concurrency.limit";

    @Bean
    MeterBinder limiterConcurrencyMetrics(ObjectProvider<ConcurrencyLimiters> limiters) {
        return (registry) -> limiters.ifAvailable((configured) -> configured.limiters().forEach((limiter) -> {
            Gauge.builder(CONCURRENCY_IN_USE, limiter, ConcurrencyLimiter::inUse).tag("limiter", limiter.name())
                .description("Calls in flight holding a slot of this concurrency limit on this instance, over every key")
                .register(registry);
            Gauge.builder(CONCURRENCY_LIMIT, limiter, (l) -> l.config().limit()).tag("limiter", limiter.name())
                .description("Most calls in flight per key of this concurrency limit, across every instance")
                .register(registry);
        }));
    }

    @Bean
    MeterBinder limiterFailurePolicyMetrics(ObjectProvider<RedisRateLimiterFactory> factory) {
        return (registry) -> factory.ifAvailable((redis) -> Gauge.builder(FAILURE_POLICY_ACTIVE, redis, (f) -> f.isRedisAvailable() ? 0 : 1)
            .description("1 while rate limiters follow their failure policy because Redis fails, 0 while Redis decides")
            .register(registry));
    }
}
