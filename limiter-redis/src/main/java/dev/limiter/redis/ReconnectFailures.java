package dev.limiter.redis;

import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisAccessor;
import org.springframework.data.redis.core.RedisOperations;

/**
 * Why Lettuce could not re-establish a connection that dropped, from its event bus: a command sent
 * meanwhile only hears "not connected", while the attempt to reconnect heard the reason (connection
 * refused, NOAUTH, WRONGPASS). Cleared once a connection is up again. Hears nothing without Lettuce.
 */
final class ReconnectFailures implements AutoCloseable {

    private volatile @Nullable Throwable last;

    private final @Nullable Disposable subscription;

    private ReconnectFailures(@Nullable ClientResources resources) {
        this.subscription = (resources == null) ? null : resources.eventBus().get().subscribe((event) -> {
            if (event instanceof ReconnectFailedEvent failed) {
                last = failed.getCause();
            }
            else if (event instanceof ConnectionActivatedEvent) {
                last = null;
            }
        });
    }

    static ReconnectFailures of(RedisOperations<String, String> redis) {
        RedisConnectionFactory factory = (redis instanceof RedisAccessor accessor) ? accessor.getConnectionFactory() : null;
        ClientResources resources = null;
        if (factory instanceof LettuceConnectionFactory lettuce) {
            resources = lettuce.getClientResources();
            if (resources == null && lettuce.getNativeClient() != null) {
                resources = lettuce.getNativeClient().getResources();
            }
        }
        return new ReconnectFailures(resources);
    }

    /** Why the last attempt to reconnect failed, unless a connection is up since; null when none failed. */
    @Nullable Throwable last() {
        return last;
    }

    @Override
    public void close() {
        if (subscription != null) {
            subscription.dispose();
        }
    }
}
