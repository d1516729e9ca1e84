package dev.limiter.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.core.ReactiveRedisOperations;

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

    ReactiveScripts(ReactiveRedisOperations<String, String> redis) {
        this.redis = redis;
    }

    /**
     * Runs {@code script} on one key. The future fails with the Redis error, if any; it completes on
     * the thread that reads Redis' reply.
     */
    CompletableFuture<List<?>> execute(LuaScript script, String key, List<?> args) {
        // The script returns one array: the reactive API emits it as one List.
        return redis.execute(script, List.of(key), args).<List<?>>map((reply) -> reply).single().toFuture();
    }

    /**
     * Connects now and sends a PING, blocking: for startup only, so that the first decision does not
     * connect on its caller's thread. Bounded, should the connection have no timeout of its own.
     */
    void connect() {
        redis.execute((connection) -> connection.ping()).blockLast(CONNECT_AT_MOST);
    }

    @Override
    public String toString() {
        return "ReactiveScripts[" + redis + "]";
    }
}
