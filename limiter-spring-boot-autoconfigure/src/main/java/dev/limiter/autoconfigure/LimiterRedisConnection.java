package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

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
 * client resources, but decisions (scripts) time out after {@code limiter.redis.timeout} and
 * commands are rejected while disconnected, so a slow or dead Redis never holds a request thread
 * longer than that. Everything else on it (loading scripts at start-up, PING) may take as long as
 * connecting ({@code limiter.redis.connect-timeout}): a cold start is no outage. With Reactor present,
 * the same connection also serves asynchronous decisions through the reactive API, whose commands
 * time out alike.
 */
final class LimiterRedisConnection implements DisposableBean {

    private static final Log logger = LogFactory.getLog(LimiterRedisConnection.class);

    /** The limiters' own connection; null when the application's is not Lettuce's, which is then used as it is. */
    private final @Nullable LettuceConnectionFactory own;

    /**
     * Times the limiters' commands out. Lettuce's default timer ticks every 100 ms, so a timeout
     * fired up to 100 ms late; this one ticks every 10 ms. Null when not Lettuce.
     */
    private final @Nullable HashedWheelTimer timer;

    /**
     * The client resources of the limiters' connection, made here: new ones when the application gave
     * none, else a copy of the application's sharing its event loops, which shutting the copy down leaves
     * running. Null when not Lettuce.
     */
    private @Nullable ClientResources resources;

    private static final long TIMER_TICK_MILLIS = 10;

    /** The longest wait between two attempts to reconnect the limiters' connection. */
    static final Duration RECONNECT_DELAY_MAX = Duration.ofMillis(100);

    /** 1 ms, 2 ms, 4 ms and so on to {@link #RECONNECT_DELAY_MAX}: a dropped connection comes back at once, a dead Redis is tried ten times a second. */
    private static final Delay RECONNECT_DELAY = Delay.exponential(Duration.ZERO, RECONNECT_DELAY_MAX, 2, TimeUnit.MILLISECONDS);

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
            LimiterRedisConnection.class.getClassLoader());

    private final StringRedisTemplate template;

    private static final long TOPOLOGY_RELOAD_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The last reload of the cluster topology, so that reloads never pile up. */
    private @Nullable CompletableFuture<Void> topologyReload;

    private long topologyReloadStarted = System.nanoTime() - TOPOLOGY_RELOAD_INTERVAL_NANOS;

    /** Null without Lettuce or without Reactor. */
    private final @Nullable ReactiveStringRedisTemplate reactiveTemplate;

    LimiterRedisConnection(RedisConnectionFactory application, Duration timeout, Duration connectTimeout) {
        this(application, timeout, connectTimeout, List.of());
    }

    /**
     * @param customizers applied to the limiters' client configuration, in order, after Limiter's own
     *     settings; ignored when the application's connection is not Lettuce's
     */
    LimiterRedisConnection(RedisConnectionFactory application, Duration timeout, Duration connectTimeout,
            List<LimiterRedisClientCustomizer> customizers) {
        if (application instanceof LettuceConnectionFactory lettuce) {
            this.timer = new HashedWheelTimer(new DefaultThreadFactory("limiter-redis-timer", true), TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS);
            this.own = new LettuceConnectionFactory(configuration(lettuce), client(lettuce, timeout, connectTimeout, customizers));
            this.own.afterPropertiesSet();
            this.own.start();
            this.template = new StringRedisTemplate(this.own);
            this.reactiveTemplate = REACTOR_PRESENT ? new ReactiveStringRedisTemplate(this.own) : null;
        }
        else {
            logger.info("Rate limiters use the application's " + application.getClass().getSimpleName()
                    + " as it is: limiter.redis.timeout applies to Lettuce only, so set the client's own timeout low");
            this.own = null;
            this.timer = null;
            this.template = new StringRedisTemplate(application);
            this.reactiveTemplate = null;
        }
    }

    /** The client configuration of the limiters' own connection; null when not Lettuce. */
    @Nullable LettuceClientConfiguration clientConfiguration() {
        return (own != null) ? own.getClientConfiguration() : null;
    }

    StringRedisTemplate template() {
        return template;
    }

    /** Reactive operations on the same connection, or null when there are none (not Lettuce, or no Reactor). */
    @Nullable ReactiveRedisOperations<String, String> reactiveTemplate() {
        return reactiveTemplate;
    }

    private static RedisConfiguration configuration(LettuceConnectionFactory application) {
        if (application.isClusterAware()) {
            return Objects.requireNonNull(application.getClusterConfiguration(), "a cluster-aware factory has a cluster configuration");
        }
        if (application.isRedisSentinelAware()) {
            return Objects.requireNonNull(application.getSentinelConfiguration(), "a sentinel-aware factory has a sentinel configuration");
        }
        if (application.getSocketConfiguration() != null) {
            return application.getSocketConfiguration();
        }
        return application.getStandaloneConfiguration();
    }

    private LettuceClientConfiguration client(LettuceConnectionFactory application, Duration timeout, Duration connectTimeout,
            List<LimiterRedisClientCustomizer> customizers) {
        LettuceClientConfiguration original = application.getClientConfiguration();
        LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
        if (original.isUseSsl()) {
            LettuceSslClientConfigurationBuilder ssl = builder.useSsl().verifyPeer(original.getVerifyMode());
            if (original.isStartTls()) {
                ssl.startTls();
            }
            builder = ssl.and();
        }
        // Sharing the application's client resources (event loops, DNS) costs no extra threads but the timer.
        // Reconnecting never waits more than RECONNECT_DELAY_MAX, where Lettuce's default backoff grows
        // to 30 s: after an outage of any length, decisions are back on Redis within a probe or two.
        resources = original.getClientResources()
            .map((shared) -> shared.mutate().timer(timer).reconnectDelay(RECONNECT_DELAY).build())
            .orElseGet(() -> DefaultClientResources.builder().timer(timer).reconnectDelay(RECONNECT_DELAY).build());
        builder.clientResources(resources);
        original.getClientName().ifPresent(builder::clientName);
        original.getReadFrom().ifPresent(builder::readFrom);
        original.getRedisCredentialsProviderFactory().ifPresent(builder::redisCredentialsProviderFactory);
        ClientOptions options = original.getClientOptions()
            .orElseGet(() -> application.isClusterAware() ? ClusterClientOptions.create() : ClientOptions.create());
        SocketOptions socket = options.getSocketOptions().mutate().connectTimeout(connectTimeout).build();
        // Lettuce's own timeouts bound blocking and reactive commands alike, whatever the
        // application's options say; the blocking wait below only has to outlast the longest.
        TimeoutOptions commandTimeout = TimeoutOptions.builder().timeoutCommands().timeoutSource(new CommandTimeouts(timeout, connectTimeout)).build();
        // Rejected at once while disconnected, instead of queued until a reconnect or the timeout.
        ClientOptions limiterOptions = options.mutate()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .socketOptions(socket)
            .timeoutOptions(commandTimeout)
            .build();
        builder.clientOptions(limiterOptions)
            .commandTimeout(CommandTimeouts.longest(timeout, connectTimeout))
            .shutdownTimeout(original.getShutdownTimeout())
            .shutdownQuietPeriod(original.getShutdownQuietPeriod());
        for (LimiterRedisClientCustomizer customizer : customizers) {
            customizer.customize(builder);
        }
        return builder.build();
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

    /**
     * Decisions (EVALSHA, EVAL) time out after {@code limiter.redis.timeout}; other commands, sent at
     * start-up or by the probe, after the longer of it and the connect timeout.
     */
    static final class CommandTimeouts extends TimeoutOptions.TimeoutSource {

        private final long decisionMillis;

        private final long otherMillis;

        CommandTimeouts(Duration decision, Duration connect) {
            this.decisionMillis = decision.toMillis();
            this.otherMillis = longest(decision, connect).toMillis();
        }

        static Duration longest(Duration decision, Duration connect) {
            return (decision.compareTo(connect) >= 0) ? decision : connect;
        }

        @Override
        public long getTimeout(RedisCommand<?, ?, ?> command) {
            ProtocolKeyword type = command.getType();
            return (type == CommandType.EVALSHA || type == CommandType.EVAL) ? decisionMillis : otherMillis;
        }

        @Override
        public TimeUnit getTimeUnit() {
            return TimeUnit.MILLISECONDS;
        }
    }

    /**
     * Closes the limiters' connection, waiting for it no longer than its client's shutdown quiet period
     * and timeout and {@link #CLOSE_MARGIN} more: Lettuce's client shutdown waits for its connections'
     * close without a bound, and once in a while never returns (lettuce#2278), which would hold the
     * application's shutdown for good.
     */
    @Override
    public void destroy() {
        if (own != null) {
            LettuceClientConfiguration client = own.getClientConfiguration();
            Duration wait = client.getShutdownQuietPeriod().plus(client.getShutdownTimeout()).plus(CLOSE_MARGIN);
            closeWithin(own::destroy, wait);
            // Else Lettuce warns, once the copy is garbage-collected, that it was never shut down.
            if (resources != null) {
                resources.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
        // Made with the own connection, and stopped once it is gone.
        if (timer != null) {
            timer.stop();
        }
    }

    /** What the application's shutdown waits for the limiters' connection beyond its client's own shutdown timeout. */
    static final Duration CLOSE_MARGIN = Duration.ofSeconds(2);

    /**
     * Runs {@code close} on a daemon thread of its own and waits for it at most {@code wait}; past that,
     * warns and returns, leaving the thread to finish or not (it keeps no JVM alive).
     *
     * @return whether {@code close} ended within {@code wait}, failing or not
     */
    static boolean closeWithin(Runnable close, Duration wait) {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Thread closing = new Thread(() -> {
            try {
                close.run();
                closed.complete(null);
            }
            catch (Throwable ex) {
                closed.completeExceptionally(ex);
            }
        }, "limiter-redis-close");
        closing.setDaemon(true);
        closing.start();
        try {
            closed.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        }
        catch (ExecutionException ex) {
            logger.warn("Closing the rate limiters' Redis connection failed", ex.getCause());
            return true;
        }
        catch (TimeoutException ex) {
            logger.warn("The rate limiters' Redis connection did not close within " + wait.toMillis() + " ms (the Redis client's "
                    + "shutdown quiet period and timeout, spring.data.redis.lettuce.shutdown-timeout, and " + CLOSE_MARGIN.toSeconds()
                    + " s more); shutdown goes on without waiting for it");
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            logger.warn("Interrupted while closing the rate limiters' Redis connection; shutdown goes on without waiting for it");
            return false;
        }
    }
}
