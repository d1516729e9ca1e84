package dev.limiter.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Six {@code redis-server} cluster nodes on loopback, joined by {@code redis-cli --cluster create} into
 * three masters with one replica each. Knows which nodes it killed; judging the cluster's health is
 * left to {@link TestRedisCluster}.
 */
final class LocalCluster {

    static final int NODE_COUNT = 6;
    static final int NODE_TIMEOUT_MILLIS = 1_000;
    static final int CREATE_TIMEOUT_SECONDS = 30;

    /** Beyond what makes a node a cluster node (set by {@link RedisServerProcess}). */
    private static final List<String> NODE_OPTIONS = List.of(
            // Short, so that a killed master is detected and replaced in about two seconds.
            "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MILLIS),
            // The default waits 5 s for more replicas before a full sync; here every replica would wait.
            "--repl-diskless-sync-delay", "0");

    private final List<RedisServerProcess> servers;
    private final Set<String> killed = new HashSet<>();
    private boolean stopped;

    private LocalCluster(List<RedisServerProcess> servers) {
        this.servers = servers;
    }

    /**
     * The redis-cli binary named by LIMITER_TEST_REDIS_CLI, else on PATH, else next to redis-server;
     * null when there is none.
     */
    static Path findCli(Path serverExecutable) {
        String configured = Settings.cliExecutable();
        if (configured != null) {
            Path path = Path.of(configured);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IllegalStateException(Settings.CLI_ENV + "=" + configured + " is not an executable file.");
            }
            return path;
        }
        Path onPath = RedisServerProcess.onPath("redis-cli");
        if (onPath != null) {
            return onPath;
        }
        Path sibling = serverExecutable.resolveSibling(
                serverExecutable.getFileName().toString().replace("redis-server", "redis-cli"));
        return Files.isRegularFile(sibling) && Files.isExecutable(sibling) ? sibling : null;
    }

    /** Starts the nodes and forms the cluster; the caller waits until it is healthy. */
    static LocalCluster start(Path serverExecutable, Path cliExecutable) {
        Set<Integer> taken = new HashSet<>();
        // Twelve ports (client and bus for each node), all different from each other.
        IntSupplier ports = () -> {
            int port;
            do {
                port = RedisServerProcess.freePort();
            } while (!taken.add(port));
            return port;
        };
        List<RedisServerProcess> servers = new ArrayList<>();
        LocalCluster cluster = new LocalCluster(servers);
        try {
            for (int i = 0; i < NODE_COUNT; i++) {
                servers.add(RedisServerProcess.startClusterNode(serverExecutable, ports, NODE_OPTIONS));
            }
            cluster.create(cliExecutable);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.stop();
            throw e;
        }
    }

    private void create(Path cliExecutable) {
        List<String> command = new ArrayList<>(List.of(cliExecutable.toString(), "--cluster", "create"));
        command.addAll(nodes());
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Path output = servers.get(0).dir().resolve("cluster-create.log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        // A password meant for some other Redis would make redis-cli fail on these unprotected nodes.
        builder.environment().remove("REDISCLI_AUTH");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cliExecutable + ": " + e.getMessage(), e);
        }
        boolean exited;
        try {
            exited = process.waitFor(CREATE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while forming the cluster", e);
        }
        if (!exited) {
            process.destroyForcibly();
            throw new IllegalStateException(describe(command) + " did not finish within " + CREATE_TIMEOUT_SECONDS
                    + " s. Its output:\n" + outputTail(output));
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(describe(command) + " exited with code " + process.exitValue()
                    + ". Its output:\n" + outputTail(output));
        }
    }

    /** redis-cli colours its output even when it goes to a file; the colour codes would clutter build logs. */
    private static String outputTail(Path output) {
        return RedisServerProcess.tail(output, 0).replaceAll("\u001B\\[[0-9;]*m", "").indent(4).stripTrailing();
    }

    private static String describe(List<String> command) {
        return String.join(" ", command);
    }

    /** "127.0.0.1:port" of every node, killed or not, in a fixed order. */
    List<String> nodes() {
        return servers.stream().map(LocalCluster::address).toList();
    }

    /** The nodes that were not killed (or were restarted since). */
    synchronized List<String> liveNodes() {
        return nodes().stream().filter(node -> !killed.contains(node)).toList();
    }

    synchronized void kill(String node) {
        checkNotStopped();
        if (killed.contains(node)) {
            throw new IllegalStateException(node + " was already killed; restart(\"" + node + "\") brings it back");
        }
        server(node).kill();
        killed.add(node);
    }

    synchronized void restart(String node) {
        checkNotStopped();
        if (!killed.contains(node)) {
            // A running master restarted without data would keep its slots and lose its keys.
            throw new IllegalStateException(node + " is running; restart() brings back a node that was killed");
        }
        server(node).restart();
        killed.remove(node);
    }

    /** Stops every node and deletes their directories. Idempotent. */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        for (RedisServerProcess server : servers) {
            try {
                server.stop();
            } catch (RuntimeException e) {
                // Keep stopping the others.
            }
        }
    }

    /** The node processes, for tests that check nothing is left behind. */
    List<RedisServerProcess> servers() {
        return List.copyOf(servers);
    }

    private RedisServerProcess server(String node) {
        return servers.stream()
                .filter(server -> address(server).equals(node))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(node + " is not a node of this cluster; its nodes are "
                        + nodes()));
    }

    private void checkNotStopped() {
        if (stopped) {
            throw new IllegalStateException("this cluster was stopped (close() was called)");
        }
    }

    private static String address(RedisServerProcess server) {
        return server.host() + ":" + server.port();
    }
}
