package dev.limiter.autoconfigure;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Turns Spring Boot's own {@code redis} health indicator off by default when the application configures
 * no Redis ({@code spring.data.redis.*}). The starter brings Spring Data Redis for the limiters, and with
 * it that indicator, which would check localhost:6379 and report the whole application DOWN, on the
 * memory backend too. The limiters' Redis has its own indicator ({@code limiters}). The default is the
 * lowest of all property sources, so {@code management.health.redis.enabled} set anywhere wins, and the
 * indicator stays as Boot has it wherever the application configures a Redis of its own.
 */
class RedisHealthEnvironmentPostProcessor implements EnvironmentPostProcessor {

    static final String PROPERTY_SOURCE_NAME = "limiterRedisHealthDefault";

    static final String ENABLED = "management.health.redis.enabled";

    private static final ConfigurationPropertyName SPRING_DATA_REDIS = ConfigurationPropertyName.of("spring.data.redis");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (Binder.get(environment).bind(ENABLED, Boolean.class).isBound() || configuresRedis(environment)) {
            return;
        }
        environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME, Map.of(ENABLED, "false")));
    }

    private static boolean configuresRedis(ConfigurableEnvironment environment) {
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.containsDescendantOf(SPRING_DATA_REDIS) == ConfigurationPropertyState.PRESENT) {
                return true;
            }
        }
        return false;
    }
}
