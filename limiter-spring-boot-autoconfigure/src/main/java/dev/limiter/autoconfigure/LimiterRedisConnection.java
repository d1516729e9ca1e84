package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
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

    private static final long TOPOLOGY_RELOAD_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The last reload of the cluster topology, so that reloads never pile up. */
    private CompletableFuture<Void> topologyReload;

    private long topologyReloadStarted = System.nanoTime() - TOPOLOGY_RELOAD_INTERVAL_NANOS;

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
        ClientOptions limiterOptions = options.mutate()
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
     * Makes a Redis Cluster client reload the cluster's topology, unless a reload is under way or began
     * less than a second ago; does nothing for other connections. Run after each failed probe: Lettuce
     * sends a slot's calls to the master its topology names, so after a master dies they are rejected
     * on its dead connection until a refresh names the promoted replica, and its own triggers (attempts
     * to reconnect to the dead master, ever further apart, and at most one refresh per 5 s) can take
     * many seconds to come.
     */
    synchronized void reloadClusterTopology() {
        if (own == null || !(own.getNativeClient() instanceof RedisClusterClient cluster)) {
            return;
        }
        long now = System.nanoTime();
        if ((topologyReload != null && !topologyReload.isDone()) || now - topologyReloadStarted < TOPOLOGY_RELOAD_INTERVAL_NANOS) {
            return;
        }
        topologyReloadStarted = now;
        topologyReload = cluster.refreshPartitionsAsync().toCompletableFuture();
    }

    @Override
    public void destroy() {
        if (own != null) {
            own.destroy();
        }
    }
}
