package dev.limiter.test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What one kind of test server ({@link TestRedis}, {@link TestRedisCluster}, {@link TestRedisSentinel})
 * has started in this JVM: the instance shared by all tests, and everything still running, which a
 * shutdown hook stops so that no server outlives the JVM.
 *
 * @param <T> the kind of test server
 */
final class Started<T> {

    private final String hookName;

    private final Consumer<T> stop;

    private final Set<T> running = ConcurrentHashMap.newKeySet();

    private T shared;

    private RuntimeException sharedFailure;

    private boolean hookInstalled;

    /**
     * @param hookName name of the shutdown hook's thread
     * @param stop stops one instance; idempotent, and it calls {@link #untrack} itself
     */
    Started(String hookName, Consumer<T> stop) {
        this.hookName = hookName;
        this.stop = stop;
    }

    /**
     * The shared instance, started by {@code start} on first use. A failure is remembered, so every
     * later test fails at once with the same explanation instead of retrying for seconds each.
     */
    synchronized T shared(Supplier<T> start) {
        if (shared == null && sharedFailure == null) {
            try {
                shared = start.get();
            }
            catch (RuntimeException e) {
                sharedFailure = e;
            }
        }
        if (sharedFailure != null) {
            throw new IllegalStateException(sharedFailure.getMessage(), sharedFailure);
        }
        return shared;
    }

    /** Remembers a started instance, to be stopped at JVM exit unless it is stopped before. */
    void track(T instance) {
        synchronized (running) {
            if (!hookInstalled) {
                Runtime.getRuntime().addShutdownHook(new Thread(this::stopAll, hookName));
                hookInstalled = true;
            }
        }
        running.add(instance);
    }

    /** Forgets a stopped instance. */
    void untrack(T instance) {
        running.remove(instance);
    }

    private void stopAll() {
        for (T instance : running) {
            try {
                stop.accept(instance);
            }
            catch (RuntimeException e) {
                // Keep stopping the others.
            }
        }
    }
}
