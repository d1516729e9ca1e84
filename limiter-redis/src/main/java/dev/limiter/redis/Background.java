package dev.limiter.redis;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one daemon thread of a Redis limiter factory, started when first needed: it probes a failed
 * Redis and sends the instance heartbeat, never anything on a decision's path.
 */
final class Background {

    private static final Log logger = LogFactory.getLog(Background.class);

    /** Started on first use. */
    private @Nullable ScheduledExecutorService executor;

    private boolean closed;

    private final String threadName;

    Background() {
        this("limiter-redis-background");
    }

    /** @param threadName the name of its thread */
    Background(String threadName) {
        this.threadName = threadName;
    }

    /**
     * Runs {@code task} every {@code interval}, the first time after one interval, until it returns
     * false or the factory closes. What it throws is logged and does not end the repetition.
     */
    void repeat(BooleanSupplier task, Duration interval) {
        repeat(task, interval, interval);
    }

    /** As {@link #repeat(BooleanSupplier, Duration)}, the first run after {@code first}. */
    synchronized void repeat(BooleanSupplier task, Duration first, Duration interval) {
        if (closed) {
            return;
        }
        if (executor == null) {
            executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
                Thread thread = new Thread(runnable, threadName);
                thread.setDaemon(true);
                return thread;
            });
        }
        long delay = Math.max(1, interval.toMillis());
        executor.schedule(() -> run(task, delay), first.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void run(BooleanSupplier task, long delay) {
        boolean again;
        try {
            again = task.getAsBoolean();
        }
        catch (RuntimeException ex) {
            logger.debug("A background task of the rate limiters failed; it runs again", ex);
            again = true;
        }
        synchronized (this) {
            // Set by repeat, which scheduled this run.
            ScheduledExecutorService executor = this.executor;
            if (again && !closed && executor != null) {
                executor.schedule(() -> run(task, delay), delay, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Stops the thread; nothing runs afterwards. */
    synchronized void close() {
        closed = true;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
