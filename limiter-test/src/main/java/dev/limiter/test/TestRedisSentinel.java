package dev.limiter.test;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * A real Redis Sentinel setup for tests: the one named by {@code LIMITER_TEST_REDIS_SENTINEL_NODES} and
 * {@code LIMITER_TEST_REDIS_SENTINEL_MASTER}, else five local {@code redis-server} processes: one master,
 * one replica of it, and three sentinels that monitor the master with a quorum of two.
 *
 * <p>Most tests use {@link #shared()}; tests that kill the master take a private setup and close it:
 * <pre>{@code
 * try (TestRedisSentinel sentinel = TestRedisSentinel.start()) {
 *     client.connect(sentinel.masterName(), sentinel.sentinels());
 *     String before = sentinel.master();
 *     sentinel.killMaster();                                          // the replica is promoted a few seconds later
 *     String after = sentinel.awaitFailover(Duration.ofSeconds(15)); // != before, answers and accepts writes
 * }
 * }</pre>
 *
 * <p>Settings, read from a system property or else the environment variable:
 * <ul>
 * <li>{@code limiter.test.redis.sentinel.nodes} / {@code LIMITER_TEST_REDIS_SENTINEL_NODES}: comma-separated
 *     {@code host:port} of sentinels that tests may use, together with
 *     {@code limiter.test.redis.sentinel.master} / {@code LIMITER_TEST_REDIS_SENTINEL_MASTER}, the name of
 *     the master they monitor; nothing is started, stopped or killed.</li>
 * <li>{@code limiter.test.redis.server} / {@code LIMITER_TEST_REDIS_SERVER}: the path of {@code redis-server}
 *     (Redis 7 or later; it also runs the sentinels), instead of looking it up on {@code PATH}.</li>
 * </ul>
 * Processes started here listen on free ports of 127.0.0.1 (never 6379), persist nothing, and never
 * outlive the JVM that started them. The sentinels consider a master down after 1000 ms without an
 * answer ({@code down-after-milliseconds}) and use a {@code failover-timeout} of 5000 ms.
 */
public final class TestRedisSentinel implements AutoCloseable {

    /** The name under which the sentinels started here monitor their master. */
    static final String MASTER_NAME = "limiter-test";
    static final int SENTINEL_COUNT = 3;
    static final int QUORUM = 2;
    static final int DOWN_AFTER_MILLIS = 1_000;
    static final int FAILOVER_TIMEOUT_MILLIS = 5_000;

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
    private static final int CALL_TIMEOUT_MILLIS = 1_000;
    private static final long POLL_MILLIS = 50;
    /** Written by {@link #awaitFailover(Duration)} to prove that the new master accepts writes; expires at once. */
    private static final String PROBE_KEY = "limiter-test:sentinel-failover-probe";

    /** Options of the master and the replica; the default waits 5 s before the replica's first sync. */
    private static final List<String> DATA_OPTIONS = List.of("--repl-diskless-sync-delay", "0");

    private static final String HOW_TO_FIX = "To give tests a Redis Sentinel setup, do one of: install Redis 7 or later"
            + " (e.g. apt-get install redis-server, brew install redis) so that redis-server is on PATH, or point "
            + Settings.SERVER_ENV + " at it; or set " + Settings.SENTINEL_NODES_ENV + "=host:port,host:port,... and "
            + Settings.SENTINEL_MASTER_ENV + "=<master name> to sentinels that tests may use.";

    /** Everything started and not yet stopped, for the shutdown hook. */
    private static final Started<TestRedisSentinel> STARTED = new Started<>("limiter-test-redis-sentinel-shutdown", TestRedisSentinel::stopAll);

    private final String masterName;
    private final List<String> sentinels;
    /** Master first, then replica; empty when the setup comes from the settings. */
    private final List<RedisServerProcess> dataServers;
    /** Empty when the setup comes from the settings. */
    private final List<RedisServerProcess> sentinelServers;
    private final boolean local;
    private final boolean isShared;
    private final Set<String> killed = new HashSet<>();
    private boolean closed;

    private TestRedisSentinel(String masterName, List<String> sentinels, List<RedisServerProcess> dataServers,
            List<RedisServerProcess> sentinelServers, boolean local, boolean isShared) {
        this.masterName = masterName;
        this.sentinels = List.copyOf(sentinels);
        this.dataServers = List.copyOf(dataServers);
        this.sentinelServers = List.copyOf(sentinelServers);
        this.local = local;
        this.isShared = isShared;
    }

    /**
     * The setup shared by all tests of this JVM: started on first use, stopped when the JVM exits.
     * Thread-safe. Its {@link #close()} does nothing and its master cannot be killed, so tests using it
     * must not change its topology. If it cannot be obtained, every call throws the same explanation.
     *
     * @return the shared instance, always the same object, settled when first returned
     * @throws IllegalStateException if no setup can be found or started (the message says how to fix it)
     */
    public static TestRedisSentinel shared() {
        return STARTED.shared(() -> obtain(true));
    }

    /**
     * A new private setup owned by the caller, who must {@link #close()} it (it is also stopped at JVM
     * exit). For tests that {@link #killMaster()}. With {@code LIMITER_TEST_REDIS_SENTINEL_NODES} set it
     * is that setup, and nothing is started.
     *
     * @return a new instance whose sentinels agree on the master and see the replica and each other
     * @throws IllegalStateException if no setup can be found or started (the message says how to fix it)
     */
    public static TestRedisSentinel start() {
        return obtain(false);
    }

    /**
     * The name under which the sentinels monitor the master; for a Sentinel client (for example
     * {@code spring.data.redis.sentinel.master}).
     *
     * @return the master name
     */
    public String masterName() {
        return masterName;
    }

    /**
     * Every sentinel, including any that are not answering; for a Sentinel client (for example
     * {@code spring.data.redis.sentinel.nodes}).
     *
     * @return {@code host:port} of each sentinel, always in the same order
     */
    public List<String> sentinels() {
        return sentinels;
    }

    /**
     * The master as the first answering sentinel reports it now. Right after {@link #killMaster()} this
     * is still the killed master; {@link #awaitFailover(Duration)} waits for its successor.
     *
     * @return {@code host:port} of the master
     * @throws IllegalStateException if no sentinel answers with an address for {@link #masterName()}
     */
    public String master() {
        checkNotClosed("master()");
        IOException last = null;
        for (String sentinel : sentinels) {
            try {
                return masterAddress(sentinel);
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no sentinel of " + this + " reports a master named '" + masterName + "'"
                + (last == null ? "" : ": " + last.getMessage()), last);
    }

    /**
     * Kills the current master abruptly, as a crash would (SIGKILL). The sentinels consider it down after
     * {@code down-after-milliseconds} (1000 ms), agree, elect a leader and promote the replica, usually
     * within a few seconds; {@link #awaitFailover(Duration)} waits for that. There is one replica, so
     * a second kill leaves no master to promote.
     *
     * @throws UnsupportedOperationException for a setup from {@code LIMITER_TEST_REDIS_SENTINEL_NODES} and
     *     for {@link #shared()}
     * @throws IllegalStateException after {@link #close()}, or if the master the sentinels report is not
     *     running (killed and not yet replaced)
     */
    public void killMaster() {
        owned("killMaster()");
        String master = master();
        RedisServerProcess server = dataServers.stream()
                .filter(candidate -> address(candidate).equals(master))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the sentinels report master " + master
                        + ", which is none of the servers started here"));
        synchronized (this) {
            if (killed.contains(master)) {
                throw new IllegalStateException("the sentinels still report " + master
                        + " as master, which was killed; call awaitFailover(...) first");
            }
            server.kill();
            killed.add(master);
        }
    }

    /**
     * Waits until every running sentinel reports the same master, which was not killed, answers
     * {@code ROLE} as a master and accepts a write. Returns at once with the current master if nothing
     * was killed.
     *
     * @param timeout how long to wait at most; about 15 seconds covers a failover even when the
     *     sentinels' first election fails
     * @return {@code host:port} of the new master
     * @throws UnsupportedOperationException for a setup from {@code LIMITER_TEST_REDIS_SENTINEL_NODES} and
     *     for {@link #shared()}
     * @throws IllegalStateException if that does not happen in time (the message says what is still
     *     wrong), or after {@link #close()}
     */
    public String awaitFailover(Duration timeout) {
        owned("awaitFailover()");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            checkNotClosed("awaitFailover()");
            String[] result = new String[1];
            String problem = failoverProblem(result);
            if (problem == null) {
                return result[0];
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no failover of '" + masterName + "' (" + this + ") after " + timeout
                        + ": " + problem);
            }
            sleep(POLL_MILLIS);
        }
    }

    /**
     * Stops the processes this object started and deletes their directories. Does nothing for a setup
     * from {@code LIMITER_TEST_REDIS_SENTINEL_NODES} and for {@link #shared()}, which lives until the JVM
     * exits. Idempotent.
     */
    @Override
    public void close() {
        if (!isShared) {
            stopAll(this);
        }
    }

    @Override
    public String toString() {
        return "TestRedisSentinel[" + (local ? "" : Settings.SENTINEL_NODES_ENV + " ") + "master " + masterName
                + ", sentinels " + String.join(",", sentinels) + (isShared ? ", shared" : "") + "]";
    }

    /** Every process started here (master, replica, sentinels), for tests; empty for a configured setup. */
    List<RedisServerProcess> servers() {
        List<RedisServerProcess> all = new ArrayList<>(dataServers);
        all.addAll(sentinelServers);
        return all;
    }

    private void owned(String operation) {
        if (!local) {
            throw new UnsupportedOperationException(operation + " is not possible for the sentinels given by "
                    + Settings.SENTINEL_NODES_ENV + " (" + String.join(",", sentinels) + "): this library did not start"
                    + " them. Unset " + Settings.SENTINEL_NODES_ENV + " to let tests start their own.");
        }
        if (isShared) {
            throw new UnsupportedOperationException(operation + " is not possible for TestRedisSentinel.shared(),"
                    + " which other tests use; take a private setup with TestRedisSentinel.start().");
        }
        checkNotClosed(operation);
    }

    private synchronized void checkNotClosed(String operation) {
        if (closed) {
            throw new IllegalStateException(operation + " after close() of " + this);
        }
    }

    private synchronized Set<String> killedNodes() {
        return Set.copyOf(killed);
    }

    // What the sentinels say.

    private String masterAddress(String sentinel) throws IOException {
        Object reply = call(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName);
        if (reply instanceof List<?> address && address.size() == 2) {
            return address.get(0) + ":" + address.get(1);
        }
        throw new IOException(sentinel + " knows no master named '" + masterName + "' (it answered " + reply + ")");
    }

    /** SENTINEL REPLICAS or SENTINEL SENTINELS: one map of fields per entry. */
    private List<Map<String, String>> entries(String sentinel, String what) throws IOException {
        Object reply = call(sentinel, "SENTINEL", what, masterName);
        if (!(reply instanceof List<?> list)) {
            throw new IOException("SENTINEL " + what + " on " + sentinel + " answered " + reply);
        }
        List<Map<String, String>> entries = new ArrayList<>();
        for (Object entry : list) {
            List<?> fields = (List<?>) entry;
            Map<String, String> map = new HashMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                map.put(String.valueOf(fields.get(i)), String.valueOf(fields.get(i + 1)));
            }
            entries.add(map);
        }
        return entries;
    }

    /** Null when every sentinel reports the given master, sees the replica in sync and the other sentinels. */
    private String startupProblem(String expectedMaster, String replica) {
        for (String sentinel : sentinels) {
            try {
                String master = masterAddress(sentinel);
                if (!master.equals(expectedMaster)) {
                    return sentinel + " reports master " + master + " instead of " + expectedMaster;
                }
                List<Map<String, String>> replicas = entries(sentinel, "REPLICAS");
                boolean replicaOk = replicas.stream().anyMatch(entry ->
                        replica.equals(entry.get("ip") + ":" + entry.get("port"))
                                && "slave".equals(entry.get("flags"))
                                && "ok".equals(entry.get("master-link-status")));
                if (!replicaOk) {
                    return sentinel + " does not see replica " + replica + " in sync yet (it sees " + replicas + ")";
                }
                List<Map<String, String>> others = entries(sentinel, "SENTINELS");
                long healthy = others.stream().filter(entry -> "sentinel".equals(entry.get("flags"))).count();
                if (healthy != sentinels.size() - 1) {
                    return sentinel + " sees " + healthy + " healthy other sentinels, not " + (sentinels.size() - 1);
                }
            } catch (IOException | RuntimeException e) {
                return sentinel + " does not answer as a sentinel: " + e.getMessage();
            }
        }
        return null;
    }

    /** Null when the running sentinels agree on a running master that accepts writes (put in result[0]). */
    private String failoverProblem(String[] result) {
        Set<String> dead = killedNodes();
        String agreed = null;
        for (String sentinel : sentinels) {
            String master;
            try {
                master = masterAddress(sentinel);
            } catch (IOException | RuntimeException e) {
                return sentinel + " does not answer as a sentinel: " + e.getMessage();
            }
            if (dead.contains(master)) {
                return sentinel + " still reports the killed master " + master;
            }
            if (agreed == null) {
                agreed = master;
            } else if (!agreed.equals(master)) {
                return "sentinels disagree: one reports master " + agreed + ", " + sentinel + " reports " + master;
            }
        }
        try {
            Object role = call(agreed, "ROLE");
            if (!(role instanceof List<?> list) || list.isEmpty() || !"master".equals(list.get(0))) {
                return "the reported master " + agreed + " answers ROLE with " + role;
            }
            Object written = call(agreed, "SET", PROBE_KEY, "1", "PX", "1000");
            if (!"OK".equals(written)) {
                return "the reported master " + agreed + " does not accept a write: " + written;
            }
        } catch (IOException | RuntimeException e) {
            return "the reported master " + agreed + " does not answer: " + e.getMessage();
        }
        result[0] = agreed;
        return null;
    }

    /** One command; an error reply becomes an IOException. */
    private static Object call(String node, String... command) throws IOException {
        int colon = node.lastIndexOf(':');
        Object reply = Resp.call(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)),
                CALL_TIMEOUT_MILLIS, command);
        if (reply instanceof Resp.ErrorReply error) {
            throw new IOException(String.join(" ", command) + " failed on " + node + ": " + error.message());
        }
        return reply;
    }

    private static String address(RedisServerProcess server) {
        return server.host() + ":" + server.port();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the sentinels", e);
        }
    }

    private static void await(String what, Duration timeout, java.util.function.Supplier<String> problem) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String current = problem.get();
            if (current == null) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + " within " + timeout.toSeconds() + " s: " + current);
            }
            sleep(POLL_MILLIS);
        }
    }

    // Obtaining one.

    private static TestRedisSentinel obtain(boolean isShared) {
        String configuredNodes = Settings.sentinelNodes();
        String configuredMaster = Settings.sentinelMaster();
        if (configuredNodes != null || configuredMaster != null) {
            return configured(configuredNodes, configuredMaster, isShared);
        }
        return startLocal(isShared);
    }

    private static TestRedisSentinel configured(String nodes, String master, boolean isShared) {
        if (nodes == null || master == null) {
            throw new IllegalStateException("Set both " + Settings.SENTINEL_NODES_ENV + " (the sentinels, host:port,...)"
                    + " and " + Settings.SENTINEL_MASTER_ENV + " (the name of the master they monitor), or neither to"
                    + " let tests start their own; only " + (nodes == null ? Settings.SENTINEL_MASTER_ENV
                    : Settings.SENTINEL_NODES_ENV) + " is set.");
        }
        List<String> sentinels = new ArrayList<>();
        for (String part : nodes.split(",")) {
            if (!part.isBlank()) {
                sentinels.add(parse(part.strip()));
            }
        }
        if (sentinels.isEmpty()) {
            throw invalid(nodes, "no sentinel given");
        }
        TestRedisSentinel setup = new TestRedisSentinel(master, sentinels, List.of(), List.of(), false, isShared);
        try {
            String address = setup.master();
            if (!Resp.ping(address.substring(0, address.lastIndexOf(':')),
                    Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)), CALL_TIMEOUT_MILLIS)) {
                throw new IllegalStateException("master " + address + " does not answer PING");
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("The sentinels of " + Settings.SENTINEL_NODES_ENV + "=" + nodes + " and "
                    + Settings.SENTINEL_MASTER_ENV + "=" + master + " are not usable: " + e.getMessage()
                    + ". Start them, or unset both to let tests start their own.", e);
        }
        return setup;
    }

    private static TestRedisSentinel startLocal(boolean isShared) {
        List<String> problems = new ArrayList<>();
        problems.add(Settings.SENTINEL_NODES_ENV + " is not set.");
        Path server = null;
        try {
            server = RedisServerProcess.findExecutable();
            if (server == null) {
                problems.add("redis-server: not found on PATH.");
            }
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
        }
        if (server == null) {
            throw new IllegalStateException("No Redis Sentinel for tests.\n- " + String.join("\n- ", problems)
                    + "\n" + HOW_TO_FIX);
        }
        Set<Integer> taken = new HashSet<>();
        IntSupplier ports = () -> {
            int port;
            do {
                port = RedisServerProcess.freePort();
            } while (!taken.add(port));
            return port;
        };
        List<RedisServerProcess> data = new ArrayList<>();
        List<RedisServerProcess> sentinelServers = new ArrayList<>();
        TestRedisSentinel setup = null;
        try {
            long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
            RedisServerProcess master = RedisServerProcess.start(server, ports, DATA_OPTIONS);
            data.add(master);
            List<String> replicaOptions = new ArrayList<>(DATA_OPTIONS);
            replicaOptions.addAll(List.of("--replicaof", master.host(), Integer.toString(master.port())));
            RedisServerProcess replica = RedisServerProcess.start(server, ports, replicaOptions);
            data.add(replica);
            // In sync before the sentinels start, so that their first look at the master already lists it.
            await("the replica " + address(replica) + " did not sync with " + address(master), remaining(deadline),
                    () -> replicaProblem(address(replica)));
            List<String> config = List.of(
                    "sentinel resolve-hostnames no",
                    "sentinel announce-ip " + RedisServerProcess.HOST,
                    "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " " + QUORUM,
                    "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
                    "sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS,
                    "sentinel parallel-syncs " + MASTER_NAME + " 1");
            for (int i = 0; i < SENTINEL_COUNT; i++) {
                sentinelServers.add(RedisServerProcess.startSentinel(server, ports, config));
            }
            setup = new TestRedisSentinel(MASTER_NAME, sentinelServers.stream().map(TestRedisSentinel::address).toList(),
                    data, sentinelServers, true, isShared);
            STARTED.track(setup);
            TestRedisSentinel started = setup;
            await("the sentinels did not settle", remaining(deadline),
                    () -> started.startupProblem(address(master), address(replica)));
            return setup;
        } catch (RuntimeException | Error e) {
            if (setup != null) {
                stopAll(setup);
            } else {
                data.forEach(RedisServerProcess::stop);
                sentinelServers.forEach(RedisServerProcess::stop);
            }
            throw new IllegalStateException("No Redis Sentinel for tests: " + e.getMessage() + "\n" + HOW_TO_FIX, e);
        }
    }

    private static String replicaProblem(String replica) {
        try {
            Object info = call(replica, "INFO", "replication");
            String link = String.valueOf(info).lines()
                    .filter(line -> line.startsWith("master_link_status:"))
                    .map(line -> line.substring("master_link_status:".length()).strip())
                    .findFirst().orElse(null);
            return "up".equals(link) ? null : "master_link_status:" + link;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static String parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw invalid(text, "expected host:port");
        }
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw invalid(text, "port out of range");
            }
        } catch (NumberFormatException e) {
            throw invalid(text, "the port is not a number");
        }
        return text;
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException(Settings.SENTINEL_NODES_ENV
                + " must be comma-separated host:port such as 127.0.0.1:26379,127.0.0.1:26380, but '" + text
                + "' is invalid: " + why);
    }

    /** Sentinels first, so that they do not react to the master going away. Idempotent. */
    private static void stopAll(TestRedisSentinel setup) {
        synchronized (setup) {
            if (setup.closed) {
                return;
            }
            setup.closed = true;
        }
        STARTED.untrack(setup);
        List<RedisServerProcess> order = new ArrayList<>(setup.sentinelServers);
        order.addAll(setup.dataServers);
        for (RedisServerProcess server : order) {
            try {
                server.stop();
            } catch (RuntimeException e) {
                // Keep stopping the others.
            }
        }
    }
}
