package dev.limiter.autoconfigure;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;

/**
 * Customizes the Lettuce client configuration of the limiters' own connection to Redis, after
 * Limiter has set its timeouts and options from the application's: for a client name, TLS details,
 * or options the application's connection does not share. Declare it as a bean; several apply in
 * their order.
 */
@FunctionalInterface
public interface LimiterRedisClientCustomizer {

    /** Changes {@code builder}, which builds the limiters' client configuration. */
    void customize(LettuceClientConfigurationBuilder builder);
}
