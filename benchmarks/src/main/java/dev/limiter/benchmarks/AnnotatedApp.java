package dev.limiter.benchmarks;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.RateLimitExceededException;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.metrics.LimiterMetricsAutoConfiguration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A small Spring Boot application with Limiter's auto-configuration and one bean of
 * {@code @RateLimited} methods, limited as configured in properties: the annotated-method path. Metrics
 * and observations are on, as in an application with the actuator (a simple meter registry, and an
 * observation registry whose meter handler times every decision): Limiter's default.
 */
final class AnnotatedApp implements AutoCloseable {

    private final ConfigurableApplicationContext context;

    private final LimitedCalls calls;

    private final boolean flood;

    private AnnotatedApp(ConfigurableApplicationContext context, Workload workload) {
        if (context.getBeanNamesForType(MeterRegistry.class).length == 0 || context.getBeanNamesForType(ObservationRegistry.class).length == 0) {
            throw new IllegalStateException("The benchmark application must measure with metrics and observations on, Limiter's default");
        }
        this.context = context;
        this.calls = context.getBean(LimitedCalls.class);
        this.flood = workload == Workload.FLOOD;
    }

    /** On the Redis backend: auto-configured Redis connection factory, Limiter's own connection. */
    static AnnotatedApp onRedis(BenchRedis redis, Algorithm algorithm, Workload workload) {
        List<String> properties = limits(algorithm);
        properties.add("limiter.backend=redis");
        properties.add("spring.data.redis.host=" + redis.host());
        properties.add("spring.data.redis.port=" + redis.port());
        // The default 100 ms protects requests from a slow Redis. On a loaded 2-core machine a benchmark
        // could exceed it and measure the in-memory failure policy instead of Redis.
        properties.add("limiter.redis.timeout=10s");
        return start(OnRedis.class, properties, workload);
    }

    /** On the in-memory backend: no Redis at all. */
    static AnnotatedApp inMemory(Algorithm algorithm, Workload workload) {
        List<String> properties = limits(algorithm);
        properties.add("limiter.backend=memory");
        return start(InMemory.class, properties, workload);
    }

    /** Both limiters of {@link LimitedCalls}, as {@code limiter.limiters.*} properties. */
    private static List<String> limits(Algorithm algorithm) {
        List<String> properties = new ArrayList<>();
        for (Workload workload : List.of(Workload.HOT_KEY, Workload.FLOOD)) {
            String prefix = "limiter.limiters." + workload.limiterName() + ".";
            properties.add(prefix + "algorithm=" + algorithm.configName());
            properties.add(prefix + "limit=" + workload.limit());
            properties.add(prefix + "window=" + workload.window().toMillis() + "ms");
            if (algorithm.isBucket()) {
                properties.add(prefix + "burst=" + workload.burst());
            }
        }
        return properties;
    }

    private static AnnotatedApp start(Class<?> configuration, List<String> properties, Workload workload) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .properties(properties.toArray(String[]::new))
            .run();
        return new AnnotatedApp(context, workload);
    }

    /** One call of the annotated method whose rejections its fallback method answers: whether it was admitted. */
    boolean callOrFallBack(String key) {
        return flood ? calls.floodOrFallBack(key) : calls.benchOrFallBack(key);
    }

    /** One call of the annotated method: whether it was admitted. */
    boolean call(String key) {
        try {
            return flood ? calls.flood(key) : calls.bench(key);
        }
        catch (RateLimitExceededException ex) {
            return false;
        }
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class, ObservationAutoConfiguration.class, LimiterMetricsAutoConfiguration.class })
    static class Metrics {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class })
    @Import(Metrics.class)
    static class OnRedis {

        @Bean
        LimitedCalls limitedCalls() {
            return new LimitedCalls();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(LimiterAutoConfiguration.class)
    @Import(Metrics.class)
    static class InMemory {

        @Bean
        LimitedCalls limitedCalls() {
            return new LimitedCalls();
        }
    }
}
