package dev.limiter.test;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster for tests: the one named by {@code LIMITER_TEST_REDIS_CLUSTER_NODES}, else six
 * local {@code redis-server} processes (three masters, three replicas) formed into a cluster with
 * {@code redis-cli --cluster create}.
 *
 * <p>Most tests use {@link #shared()}; tests that kill nodes take a private cluster and close it:
 * <pre>{@code
 * try (TestRedisCluster cluster = TestRedisCluster.start()) {
 *     client.connect(cluster.nodes());
 *     String master = cluster.masterFor("{orders:42}");
 *     cluster.killMaster(master);                      // its replica takes over after about two seconds
 *     cluster.awaitHealthy(Duration.ofSeconds(10));
 *     cluster.restart(master);                         // comes back as a replica
 *     cluster.awaitHealthy(Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>Settings, read from a system property or else the environment variable:
 * <ul>
 * <li>{@code limiter.test.redis.cluster.nodes} / {@code LIMITER_TEST_REDIS_CLUSTER_NODES}: comma-separated
 *     {@code host:port} of nodes of a Redis Cluster that tests may use; nothing is started, stopped or killed.</li>
 * <li>{@code limiter.test.redis.server} / {@code LIMITER_TEST_REDIS_SERVER}: the path of {@code redis-server}
 *     (Redis 7 or later), instead of looking it up on {@code PATH}.</li>
 * <li>{@code limiter.test.redis.cli} / {@code LIMITER_TEST_REDIS_CLI}: the path of {@code redis-cli}, instead
 *     of looking it up on {@code PATH} and next to {@code redis-server}.</li>
 * </ul>
 * Nodes started here listen on free ports of 127.0.0.1 (never 6379), use {@code cluster-node-timeout}
 * 1000 ms, persist nothing, and never outlive the JVM that started them.
 */
public final class TestRedisCluster implements AutoCloseable {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
    private static final int CALL_TIMEOUT_MILLIS = 1_000;
    private static final long POLL_MILLIS = 50;

    private static final String HOW_TO_FIX = "To give tests a Redis Cluster, do one of: install Redis 7 or later"
            + " (e.g. apt-get install redis-server, brew install redis) so that redis-server and redis-cli are on PATH,"
            + " or point " + Settings.SERVER_ENV + " and " + Settings.CLI_ENV + " at them; or set "
            + Settings.CLUSTER_NODES_ENV + "=host:port,host:port,... to a Redis Cluster that tests may use.";

    /** Everything started and not yet stopped, for the shutdown hook. */
    private static final Started<TestRedisCluster> STARTED = new Started<>("limiter-test-redis-cluster-shutdown", TestRedisCluster::stopNodes);

    /** Null when the cluster comes from {@code LIMITER_TEST_REDIS_CLUSTER_NODES}. */
    private final LocalCluster local;
    private final List<String> nodes;
    private final boolean isShared;
    private boolean closed;

    private TestRedisCluster(LocalCluster local, List<String> nodes, boolean isShared) {
        this.local = local;
        this.nodes = List.copyOf(nodes);
        this.isShared = isShared;
    }

    /**
     * The cluster shared by all tests of this JVM: started on first use, stopped when the JVM exits.
     * Thread-safe. Its {@link #close()} does nothing, and its nodes cannot be killed or restarted, so
     * tests using it must not change its topology. If it cannot be obtained, every call throws the same
     * explanation.
     *
     * @return the shared instance, always the same object, healthy when first returned
     * @throws IllegalStateException if no cluster can be found or started (the message says how to fix it)
     */
    public static TestRedisCluster shared() {
        return STARTED.shared(() -> obtain(true));
    }

    /**
     * A new private cluster owned by the caller, who must {@link #close()} it (it is also stopped at JVM
     * exit). For tests that {@link #killMaster(String)} or {@link #restart(String)} nodes. With
     * {@code LIMITER_TEST_REDIS_CLUSTER_NODES} set it is that cluster, and nothing is started.
     *
     * @return a new instance, healthy and empty unless it comes from {@code LIMITER_TEST_REDIS_CLUSTER_NODES}
     * @throws IllegalStateException if no cluster can be found or started (the message says how to fix it)
     */
    public static TestRedisCluster start() {
        return obtain(false);
    }

    /**
     * The hash slot of a key, computed as Redis Cluster does: CRC16 of the key, or of its hash tag (the
     * text between the first <code>&#123;</code> and the next <code>&#125;</code>, if not empty), modulo 16384.
     *
     * @param key a key, as sent to Redis (UTF-8)
     * @return the slot, from 0 to 16383
     */
    public static int slot(String key) {
        return KeySlot.of(key);
    }

    /**
     * Every node of the cluster, masters and replicas, including killed ones; for a cluster client's
     * seed list (for example {@code spring.data.redis.cluster.nodes}).
     *
     * @return {@code host:port} of each node, always in the same order
     */
    public List<String> nodes() {
        return nodes;
    }

    /**
     * The masters that serve slots now, as the first answering node sees them. During a failover this
     * may still name a killed master; call {@link #awaitHealthy(Duration)} first for a settled answer.
     *
     * @return {@code host:port} of each master, ordered by the first slot it serves
     */
    public List<String> masters() {
        return currentView().slotOwners().stream().map(ClusterView.Node::address).toList();
    }

    /**
     * The master that serves the key's slot now, as the first answering node sees it.
     *
     * @param key a key; only its hash tag counts if it has one
     * @return {@code host:port} of the master
     * @throws IllegalStateException if no master serves that slot
     */
    public String masterFor(String key) {
        int slot = slot(key);
        return currentView().owner(slot)
                .map(ClusterView.Node::address)
                .orElseThrow(() -> new IllegalStateException("no master serves slot " + slot + " (key '" + key
                        + "'); is the cluster healthy?"));
    }

    /**
     * Kills a master abruptly, as a crash would (SIGKILL). Its replica takes over once the other nodes
     * agree it is gone, about two seconds later; {@link #awaitHealthy(Duration)} waits for that.
     *
     * @param hostPort a master, as listed by {@link #masters()}
     * @throws UnsupportedOperationException for a cluster from {@code LIMITER_TEST_REDIS_CLUSTER_NODES}
     *     and for {@link #shared()}
     * @throws IllegalArgumentException if {@code hostPort} is not a master serving slots
     * @throws IllegalStateException after {@link #close()}, or if the node was already killed
     */
    public void killMaster(String hostPort) {
        LocalCluster cluster = owned("killMaster()");
        if (!nodes.contains(hostPort)) {
            throw new IllegalArgumentException(hostPort + " is not a node of this cluster; its nodes are " + nodes);
        }
        List<String> masters = masters();
        if (!masters.contains(hostPort)) {
            throw new IllegalArgumentException(hostPort + " is not a master serving slots; the masters are " + masters);
        }
        cluster.kill(hostPort);
    }

    /**
     * Starts a killed node again on the same port, with no data but with its cluster identity, and
     * returns once it answers PING. If a replica has taken over its slots meanwhile (call
     * {@link #awaitHealthy(Duration)} after {@link #killMaster(String)} to be sure), it rejoins as a
     * replica of that new master; {@link #awaitHealthy(Duration)} then waits until it is in sync.
     *
     * @param hostPort a node killed by {@link #killMaster(String)}
     * @throws UnsupportedOperationException for a cluster from {@code LIMITER_TEST_REDIS_CLUSTER_NODES}
     *     and for {@link #shared()}
     * @throws IllegalArgumentException if {@code hostPort} is not a node of this cluster
     * @throws IllegalStateException after {@link #close()}, if the node is running, or if its port was taken
     */
    public void restart(String hostPort) {
        owned("restart()").restart(hostPort);
    }

    /**
     * Waits until the cluster is healthy: every running node reports {@code cluster_state:ok} with all
     * 16384 slots served, all of them agree which running master serves which slots and which node
     * replicates which, none sees another running node as failing, and every replica is in sync with its
     * master.
     *
     * @param timeout how long to wait at most
     * @throws IllegalStateException if the cluster is not healthy in time (the message says what is still
     *     wrong), or after {@link #close()}
     */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            checkNotClosed("awaitHealthy()");
            String problem = healthProblem();
            if (problem == null) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Redis Cluster " + nodes + " is not healthy after " + timeout
                        + ": " + problem);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the cluster to become healthy", e);
            }
        }
    }

    /**
     * Stops the nodes this object started and deletes their directories. Does nothing for a cluster from
     * {@code LIMITER_TEST_REDIS_CLUSTER_NODES} and for {@link #shared()}, which lives until the JVM exits.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!isShared) {
            stopNodes();
        }
    }

    @Override
    public String toString() {
        return "TestRedisCluster[" + (local == null ? Settings.CLUSTER_NODES_ENV + " " : "")
                + String.join(",", nodes) + (isShared ? ", shared" : "") + "]";
    }

    /** The started nodes, for tests that check what close() leaves behind; null for a configured cluster. */
    LocalCluster local() {
        return local;
    }

    private LocalCluster owned(String operation) {
        if (local == null) {
            throw new UnsupportedOperationException(operation + " is not possible for the Redis Cluster given by "
                    + Settings.CLUSTER_NODES_ENV + " (" + String.join(",", nodes) + "): this library did not start it."
                    + " Unset " + Settings.CLUSTER_NODES_ENV + " to let tests start their own cluster.");
        }
        if (isShared) {
            throw new UnsupportedOperationException(operation + " is not possible for TestRedisCluster.shared(),"
                    + " which other tests use; take a private cluster with TestRedisCluster.start().");
        }
        checkNotClosed(operation);
        return local;
    }

    private synchronized void checkNotClosed(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + " after close() of " + this);
        }
    }

    private List<String> liveNodes() {
        return local == null ? nodes : local.liveNodes();
    }

    /** The view of the first running node that answers. */
    private ClusterView currentView() {
        checkNotClosed("reading the cluster's topology");
        IOException last = null;
        for (String node : liveNodes()) {
            try {
                return ClusterView.parse(text(node, "CLUSTER", "NODES"));
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no node of " + this + " answers CLUSTER NODES"
                + (last == null ? "" : ": " + last.getMessage()), last);
    }

    /** Null when the cluster is healthy, else the first thing found wrong (for the timeout message). */
    private String healthProblem() {
        List<String> live = liveNodes();
        String agreedTopology = null;
        String agreedBy = null;
        for (String node : live) {
            try {
                String info = text(node, "CLUSTER", "INFO");
                String state = infoField(info, "cluster_state");
                String slotsOk = infoField(info, "cluster_slots_ok");
                if (!"ok".equals(state) || !String.valueOf(KeySlot.SLOTS).equals(slotsOk)) {
                    return node + " reports cluster_state:" + state + " with " + slotsOk + " of " + KeySlot.SLOTS
                            + " slots ok";
                }
                ClusterView view = ClusterView.parse(text(node, "CLUSTER", "NODES"));
                for (ClusterView.Node other : view.nodes()) {
                    boolean running = live.contains(other.address());
                    // A node can report "ok" before it has noticed that a master died.
                    if (other.isMaster() && !other.slots().isEmpty() && (!running || other.isFailing())) {
                        return node + " still sees slots served by " + other.address()
                                + (running ? ", which it flags " + other.flags() : ", which was killed");
                    }
                    if (running && (other.isFailing() || other.isJoining())) {
                        return node + " flags " + other.address() + " " + other.flags();
                    }
                }
                for (String other : live) {
                    if (view.node(other).isEmpty()) {
                        return node + " does not know " + other + " yet";
                    }
                }
                // Slot owners and replica relations travel by gossip, after CLUSTER INFO already says ok.
                String topology = view.topology(live);
                if (agreedTopology == null) {
                    agreedTopology = topology;
                    agreedBy = node;
                } else if (!agreedTopology.equals(topology)) {
                    return "nodes disagree on the topology: " + agreedBy + " sees " + agreedTopology + ", " + node
                            + " sees " + topology;
                }
                boolean replica = view.myself().map(myself -> !myself.isMaster()).orElse(false);
                if (replica) {
                    String link = infoField(text(node, "INFO", "replication"), "master_link_status");
                    // A replica that never synced would refuse to take over (its data counts as too old).
                    if (!"up".equals(link)) {
                        return node + " is a replica with master_link_status:" + link;
                    }
                }
            } catch (IOException | RuntimeException e) {
                return node + " does not answer as a cluster node: " + e.getMessage();
            }
        }
        return null;
    }

    /** A command whose reply is text (CLUSTER INFO, CLUSTER NODES, INFO); an error reply becomes an IOException. */
    private static String text(String node, String... command) throws IOException {
        HostPort address = HostPort.parse(node);
        Object reply = Resp.call(address.host(), address.port(), CALL_TIMEOUT_MILLIS, command);
        if (reply instanceof Resp.ErrorReply error) {
            throw new IOException(String.join(" ", command) + " failed on " + node + ": " + error.message());
        }
        if (!(reply instanceof String text)) {
            throw new IOException(String.join(" ", command) + " on " + node + " answered " + reply);
        }
        return text;
    }

    /** The value of "name:value" in an INFO-style reply, or null. */
    private static String infoField(String info, String name) {
        return info.lines()
                .filter(line -> line.startsWith(name + ":"))
                .map(line -> line.substring(name.length() + 1).strip())
                .findFirst()
                .orElse(null);
    }

    private synchronized void stopNodes() {
        if (closed) {
            return;
        }
        closed = true;
        STARTED.untrack(this);
        if (local != null) {
            local.stop();
        }
    }

    private static TestRedisCluster obtain(boolean isShared) {
        String configured = Settings.clusterNodes();
        TestRedisCluster cluster = configured != null
                ? new TestRedisCluster(null, discover(configured), isShared)
                : startLocal(isShared);
        try {
            cluster.awaitHealthy(STARTUP_TIMEOUT);
        } catch (RuntimeException e) {
            cluster.stopNodes();
            throw e;
        }
        return cluster;
    }

    private static TestRedisCluster startLocal(boolean isShared) {
        List<String> problems = new ArrayList<>();
        problems.add(Settings.CLUSTER_NODES_ENV + " is not set.");
        Path server = null;
        Path cli = null;
        try {
            server = RedisServerProcess.findExecutable();
            if (server == null) {
                problems.add("redis-server: not found on PATH.");
            } else {
                cli = LocalCluster.findCli(server);
                if (cli == null) {
                    problems.add("redis-cli: not found on PATH nor next to " + server + ".");
                }
            }
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
        }
        if (server == null || cli == null) {
            throw new IllegalStateException("No Redis Cluster for tests.\n- " + String.join("\n- ", problems)
                    + "\n" + HOW_TO_FIX);
        }
        LocalCluster local;
        try {
            local = LocalCluster.start(server, cli);
        } catch (RuntimeException e) {
            throw new IllegalStateException("No Redis Cluster for tests: " + e.getMessage() + "\n" + HOW_TO_FIX, e);
        }
        TestRedisCluster cluster = new TestRedisCluster(local, local.nodes(), isShared);
        STARTED.track(cluster);
        return cluster;
    }

    /** All nodes of the configured cluster, as the first configured node that answers lists them. */
    private static List<String> discover(String configured) {
        List<String> seeds = new ArrayList<>();
        for (String part : configured.split(",")) {
            if (!part.isBlank()) {
                seeds.add(HostPort.parse(part.strip()).toString());
            }
        }
        if (seeds.isEmpty()) {
            throw HostPort.invalid(configured, "no node given");
        }
        IOException last = null;
        for (String seed : seeds) {
            try {
                List<String> found = ClusterView.parse(text(seed, "CLUSTER", "NODES")).nodes().stream()
                        .filter(node -> !node.isFailing() && !node.isJoining())
                        .map(ClusterView.Node::address)
                        .toList();
                if (!found.isEmpty()) {
                    return found;
                }
            } catch (IOException | RuntimeException e) {
                last = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
            }
        }
        throw new IllegalStateException("No node of " + Settings.CLUSTER_NODES_ENV + "=" + configured
                + " answers CLUSTER NODES" + (last == null ? "" : " (" + last.getMessage() + ")")
                + ". Start that cluster, or unset " + Settings.CLUSTER_NODES_ENV
                + " to let tests start their own.", last);
    }

    /** "host:port" as written in {@code LIMITER_TEST_REDIS_CLUSTER_NODES} and in CLUSTER NODES. */
    record HostPort(String host, int port) {

        static HostPort parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw invalid(text, "expected host:port");
            }
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // IPv6 literal
            }
            int port;
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw invalid(text, "the port is not a number");
            }
            if (port < 1 || port > 65535) {
                throw invalid(text, "port out of range");
            }
            return new HostPort(host, port);
        }

        static IllegalArgumentException invalid(String text, String why) {
            return new IllegalArgumentException(Settings.CLUSTER_NODES_ENV
                    + " must be comma-separated host:port such as 127.0.0.1:7000,127.0.0.1:7001, but '" + text
                    + "' is invalid: " + why);
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }
}
