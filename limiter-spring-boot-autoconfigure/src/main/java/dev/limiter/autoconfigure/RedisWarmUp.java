package dev.limiter.autoconfigure;

import dev.limiter.redis.RedisRateLimiterFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Connects the limiters to Redis, loads their scripts and starts the instance heartbeat
 * ({@link RedisRateLimiterFactory#warmUp()}) once the context has created every bean and checked every
 * limiter, and before the web server takes requests. A configuration mistake thus stops startup with its
 * own message alone, before any connection or thread of the limiters exists.
 */
final class RedisWarmUp implements SmartLifecycle {

    /** Before the web server starts (Boot starts it in phase {@code DEFAULT_PHASE - 2048}). */
    static final int PHASE = 0;

    private final ObjectProvider<RedisRateLimiterFactory> factory;

    private volatile boolean running;

    RedisWarmUp(ObjectProvider<RedisRateLimiterFactory> factory) {
        this.factory = factory;
    }

    @Override
    public void start() {
        RedisRateLimiterFactory redis = factory.getIfUnique();
        if (redis != null) {
            redis.warmUp();
        }
        running = true;
    }

    @Override
    public void stop() {
        // The factory stops its heartbeat and probe when it is closed, as the context destroys it.
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
