package dev.limiter.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.limiter.test.TestRedis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Assumptions;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A Redis of a test's own, which the test may kill, freeze or make refuse, and a connection to it like
 * the limiters' own: commands time out, and are rejected at once while disconnected instead of queued.
 * Tests that need it are skipped when the Redis is given by URL (it is nobody's to break).
 */
final class PrivateRedis implements AutoCloseable {

    final TestRedis redis;

    final ClientResources resources;

    final LettuceConnectionFactory connections;

    final StringRedisTemplate template;

    private PrivateRedis(TestRedis redis, Duration commandTimeout, Delay reconnectDelay) {
        this.redis = redis;
        this.resources = DefaultClientResources.builder().reconnectDelay(reconnectDelay).build();
        LettuceClientConfiguration client = LettuceClientConfiguration.builder()
            .commandTimeout(commandTimeout)
            .shutdownTimeout(Duration.ZERO)
            .clientOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled())
                .build())
            .clientResources(resources)
            .build();
        this.connections = TestRedisSupport.connectionFactory(redis, client);
        this.template = TestRedisSupport.template(connections);
    }

    /**
     * Starts a Redis of the test's own and connects to it.
     *
     * @param reconnectDelay how long the client waits between attempts to reconnect
     */
    static PrivateRedis start(Duration commandTimeout, Delay reconnectDelay) {
        TestRedis redis = TestRedis.start();
        if (redis.source() == TestRedis.Source.URL) {
            redis.close();
            Assumptions.abort("needs a Redis the test may kill, freeze or make refuse");
        }
        return new PrivateRedis(redis, commandTimeout, reconnectDelay);
    }

    @Override
    public void close() {
        connections.destroy();
        resources.shutdown(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        redis.close();
    }
}
