package dev.limiter.test;

import java.time.Duration;
import java.util.List;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@code redis:7} container through Testcontainers. The only class that touches Testcontainers, so
 * that {@link TestRedis} loads and works without it on the classpath.
 */
final class DockerRedis implements Server {

    private static final int REDIS_PORT = 6379;

    private final GenericContainer<?> container;
    private final String host;
    private final int port;
    private boolean stopped;

    private DockerRedis(GenericContainer<?> container) {
        this.container = container;
        this.host = container.getHost();
        this.port = container.getMappedPort(REDIS_PORT);
    }

    /** Starts a container, or returns null when Testcontainers finds no working Docker engine. */
    static Server startIfDockerAvailable() {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return null;
        }
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(Settings.DOCKER_IMAGE))
                .withExposedPorts(REDIS_PORT)
                .withCommand("redis-server", "--save", "", "--appendonly", "no")
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1)
                        .withStartupTimeout(Duration.ofSeconds(60)));
        container.start();
        DockerRedis redis = new DockerRedis(container);
        redis.awaitPing();
        return redis;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public synchronized void pause() {
        container.getDockerClient().pauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public synchronized void resume() {
        container.getDockerClient().unpauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public synchronized void kill() {
        checkNotStopped();
        if (container.getContainerId() != null && container.isRunning()) {
            // docker kill sends SIGKILL: Redis dies as in a crash.
            container.getDockerClient().killContainerCmd(container.getContainerId()).exec();
        }
    }

    @Override
    public synchronized void restart() {
        checkNotStopped();
        container.stop(); // removes the (possibly killed) container; a new one is created below
        // A fresh container would get a new random port; bind the one the caller already knows.
        container.setPortBindings(List.of(port + ":" + REDIS_PORT));
        container.start();
        awaitPing();
    }

    @Override
    public synchronized void stop() {
        if (!stopped) {
            stopped = true;
            container.stop();
        }
    }

    @Override
    public String toString() {
        return "container " + Settings.DOCKER_IMAGE + " on " + host + ":" + port;
    }

    private void checkNotStopped() {
        if (stopped) {
            throw new IllegalStateException("this container was stopped (close() was called)");
        }
    }

    /** The log line can precede the port mapping being usable from the host, so wait for PING too. */
    private void awaitPing() {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!Resp.ping(host, port, 250)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(toString() + " did not answer PING within 10 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + this, e);
            }
        }
    }
}
