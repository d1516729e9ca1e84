package dev.limiter.autoconfigure;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceSslClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveRedisOperations;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ClassUtils;

/**
 * The limiters' own connection to the application's Redis: same servers, credentials, TLS and
 * client resources, but a short command timeout and commands rejected while disconnected, so a
 * slow or dead Redis never holds a request thread longer than {@code limiter.redis.timeout}. With
 * Reactor present, the same connection also serves asynchronous decisions through the reactive API,
 * whose commands time out alike.
 */
final class LimiterRedisConnection implements DisposableBean {

    private static final Log logger = LogFactory.getLog(LimiterRedisConnection.class);

    private final LettuceConnectionFactory own;

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
            LimiterRedisConnection.class.getClassLoader());

    private final StringRedisTemplate template;

    /** Null without Lettuce or without Reactor. */
    private final ReactiveStringRedisTemplate reactiveTemplate;

    LimiterRedisConnection(RedisConnectionFactory application, Duration timeout, Duration connectTimeout) {
        if (application instanceof LettuceConnectionFactory lettuce) {
            this.own = new LettuceConnectionFactory(configuration(lettuce), client(lettuce, timeout, connectTimeout));
            this.own.afterPropertiesSet();
            this.own.start();
            this.template = new StringRedisTemplate(this.own);
            this.reactiveTemplate = REACTOR_PRESENT ? new ReactiveStringRedisTemplate(this.own) : null;
        }
        else {
            logger.info("Rate limiters use the application's " + application.getClass().getSimpleName()
                    + " as it is: limiter.redis.timeout applies to Lettuce only, so set the client's own timeout low");
            this.own = null;
            this.template = new StringRedisTemplate(application);
            this.reactiveTemplate = null;
        }
    }

    StringRedisTemplate template() {
        return template;
    }

    /** Reactive operations on the same connection, or null when there are none (not Lettuce, or no Reactor). */
    ReactiveRedisOperations<String, String> reactiveTemplate() {
        return reactiveTemplate;
    }

    private static RedisConfiguration configuration(LettuceConnectionFactory application) {
        if (application.isClusterAware()) {
            return application.getClusterConfiguration();
        }
        if (application.isRedisSentinelAware()) {
            return application.getSentinelConfiguration();
        }
        if (application.getSocketConfiguration() != null) {
            return application.getSocketConfiguration();
        }
        return application.getStandaloneConfiguration();
    }

    private static LettuceClientConfiguration client(LettuceConnectionFactory application, Duration timeout, Duration connectTimeout) {
        LettuceClientConfiguration original = application.getClientConfiguration();
        LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
        if (original.isUseSsl()) {
            LettuceSslClientConfigurationBuilder ssl = builder.useSsl().verifyPeer(original.getVerifyMode());
            if (original.isStartTls()) {
                ssl.startTls();
            }
            builder = ssl.and();
        }
        // Sharing the application's client resources (event loops, DNS) costs no extra threads.
        original.getClientResources().ifPresent(builder::clientResources);
        original.getClientName().ifPresent(builder::clientName);
        original.getReadFrom().ifPresent(builder::readFrom);
        original.getRedisCredentialsProviderFactory().ifPresent(builder::redisCredentialsProviderFactory);
        ClientOptions options = original.getClientOptions()
            .orElseGet(() -> application.isClusterAware() ? ClusterClientOptions.create() : ClientOptions.create());
        SocketOptions socket = options.getSocketOptions().mutate().connectTimeout(connectTimeout).build();
        // The command timeout below bounds blocking calls only; Lettuce's own timeout bounds
        // reactive commands as well, whatever the application's options say.
        TimeoutOptions commandTimeout = TimeoutOptions.enabled(timeout);
        // Rejected at once while disconnected, instead of queued until a reconnect or the timeout.
        ClientOptions limiterOptions = (options instanceof ClusterClientOptions cluster)
                ? cluster.mutate()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(socket)
                    .timeoutOptions(commandTimeout)
                    .topologyRefreshOptions(topologyRefresh(cluster.getTopologyRefreshOptions()))
                    .build()
                : options.mutate()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(socket)
                    .timeoutOptions(commandTimeout)
                    .build();
        return builder.clientOptions(limiterOptions)
            .commandTimeout(timeout)
            .shutdownTimeout(original.getShutdownTimeout())
            .shutdownQuietPeriod(original.getShutdownQuietPeriod())
            .build();
    }

    /**
     * The application's topology refresh if it has one; otherwise refresh on the signs of a failover
     * (reconnect attempts, redirects, uncovered slots) and every 30 s, so that a promoted replica
     * becomes known to the client.
     */
    private static ClusterTopologyRefreshOptions topologyRefresh(ClusterTopologyRefreshOptions configured) {
        if (configured.isPeriodicRefreshEnabled() || !configured.getAdaptiveRefreshTriggers().isEmpty()) {
            return configured;
        }
        return ClusterTopologyRefreshOptions.builder()
            .enableAllAdaptiveRefreshTriggers()
            .refreshTriggersReconnectAttempts(1)
            .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
            .enablePeriodicRefresh(Duration.ofSeconds(30))
            .build();
    }

    @Override
    public void destroy() {
        if (own != null) {
            own.destroy();
        }
    }
}
