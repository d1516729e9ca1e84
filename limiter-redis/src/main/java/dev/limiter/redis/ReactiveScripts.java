package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.ReactiveRedisClusterConnection;
import org.springframework.data.redis.core.ReactiveRedisOperations;

import reactor.core.publisher.Mono;

/**
 * Runs the limiters' scripts through Spring Data Redis' reactive API, so that no thread waits for
 * Redis. The only class of the core that touches Reactor: the others see a future, so the core works
 * without Reactor on the classpath as long as no reactive operations are given to it.
 * <p>
 * EVALSHA falls back to EVAL within the same call when Redis answers NOSCRIPT (Spring Data Redis'
 * reactive script executor does so); nothing else is ever retried, so a script that timed out, and
 * may have been applied, is never sent again.
 */
final class ReactiveScripts {

    private static final Duration CONNECT_AT_MOST = Duration.ofSeconds(10);

    private final ReactiveRedisOperations<String, String> redis;

    /** How long a script may take before its future fails with a TimeoutException; 0 for no bound of its own. */
    private final long deadlineMillis;

    /**
     * @param deadline how long a script may take in all before its future fails, whatever the
     *     connection's own timeouts do (a connection being re-made, a command queued for a reconnect);
     *     null or zero for none
     */
    ReactiveScripts(ReactiveRedisOperations<String, String> redis, @Nullable Duration deadline) {
        this.redis = redis;
        this.deadlineMillis = (deadline != null) ? deadline.toMillis() : 0;
    }

    /** The reply, failing with a TimeoutException after the deadline (the command goes on, its answer ignored). */
    private CompletableFuture<List<?>> bounded(CompletableFuture<List<?>> reply) {
        return (deadlineMillis > 0) ? reply.orTimeout(deadlineMillis, TimeUnit.MILLISECONDS) : reply;
    }

    /**
     * Runs {@code script} on one key. The future fails with the Redis error, if any; it completes on
     * the thread that reads Redis' reply.
     */
    CompletableFuture<List<?>> execute(LuaScript script, String key, List<?> args) {
        // The script returns one array: the reactive API emits it as one List.
        return bounded(redis.execute(script, List.of(key), args).<List<?>>map((reply) -> reply).single().toFuture());
    }

    /** Runs {@code script} on {@code keys}, as {@link #execute(LuaScript, String, List)} on one. */
    CompletableFuture<List<?>> execute(LuaScript script, List<String> keys, List<?> args) {
        return bounded(redis.execute(script, keys, args).<List<?>>map((reply) -> reply).single().toFuture());
    }

    /**
     * Runs {@code script} on the first {@code keys} of {@code keysAndArgs}, UTF-8 encoded, the rest
     * being its arguments, as {@link BlockingScripts#execute(LuaScript, int, byte[][])} takes them.
     */
    CompletableFuture<List<?>> execute(LuaScript script, int keys, byte[][] keysAndArgs) {
        List<String> keyList = new ArrayList<>(keys);
        List<String> args = new ArrayList<>(keysAndArgs.length - keys);
        for (int i = 0; i < keysAndArgs.length; i++) {
            (i < keys ? keyList : args).add(new String(keysAndArgs[i], StandardCharsets.UTF_8));
        }
        return bounded(redis.execute(script, keyList, args).<List<?>>map((reply) -> reply).single().toFuture());
    }

    /** Whether this Redis is a cluster, which needs every key of one script in one slot; sends nothing to Redis. */
    CompletableFuture<Boolean> isCluster() {
        return redis.execute((connection) -> Mono.just(connection instanceof ReactiveRedisClusterConnection)).next().toFuture();
    }

    /**
     * Connects now and sends a PING, blocking: for startup only, so that the first decision does not
     * connect on its caller's thread. Bounded, should the connection have no timeout of its own.
     *
     * @return whether this Redis is a cluster
     */
    boolean connect() {
        Boolean cluster = redis.execute((connection) -> connection.ping().map((pong) -> connection instanceof ReactiveRedisClusterConnection))
            .blockLast(CONNECT_AT_MOST);
        return Boolean.TRUE.equals(cluster);
    }

    @Override
    public String toString() {
        return "ReactiveScripts[" + redis + "]";
    }
}
