package dev.limiter.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

/**
 * A {@code redis-server} child process on a free loopback port, with its own temporary directory: a plain
 * server for {@link TestRedis}, a cluster node for {@link TestRedisCluster}, or a master, replica or
 * sentinel for {@link TestRedisSentinel}.
 */
final class RedisServerProcess implements Server {

    static final String HOST = "127.0.0.1";
    static final int STARTUP_TIMEOUT_MILLIS = 10_000;
    static final int PORT_ATTEMPTS = 5;
    /** Never started on: a developer's or CI's own Redis may live there. */
    static final int RESERVED_PORT = 6379;

    private static final String DIR_PREFIX = "limiter-test-redis-";
    private static final String LOG = "redis.log";
    private static final String OWNER_PID = "owner.pid";
    private static final String SERVER_PID = "server.pid";
    /** A cluster node's identity and view of the cluster; kept across restart so that the node rejoins. */
    private static final String NODES_CONF = "nodes.conf";
    /** A sentinel's configuration; sentinel mode needs a writable file, which it rewrites as it learns. */
    private static final String SENTINEL_CONF = "sentinel.conf";
    private static final AtomicBoolean ORPHANS_REAPED = new AtomicBoolean();

    /**
     * How a plain server differs from the default one: served over TLS only (its port is the TLS port),
     * with its data kept across {@link #restart()}, and reached (for readiness checks) as {@code access} says.
     */
    record Mode(boolean tls, boolean keepData, Resp.Access access) {

        /** Plain TCP, no AUTH, empty after every restart. */
        static final Mode DEFAULT = new Mode(false, false, Resp.Access.PLAIN);
    }

    private final Path executable;
    private final Path dir;
    private final int port;
    /** The cluster bus port of a cluster node; 0 for a plain server or a sentinel. */
    private final int busPort;
    /** Command-line options besides those every server gets (and, for a cluster node, those that make it one). */
    private final List<String> options;
    /** The lines of sentinel.conf for a sentinel; null for any other server. */
    private final List<String> sentinelConfig;
    private final Mode mode;
    private Process process;
    private boolean stopped;

    private RedisServerProcess(Path executable, Path dir, int port, int busPort, List<String> options,
            List<String> sentinelConfig, Mode mode, Process process) {
        this.executable = executable;
        this.dir = dir;
        this.port = port;
        this.busPort = busPort;
        this.options = options;
        this.sentinelConfig = sentinelConfig;
        this.mode = mode;
        this.process = process;
    }

    /** The binary named by LIMITER_TEST_REDIS_SERVER, else redis-server on PATH; empty with no reason if absent. */
    static Path findExecutable() {
        String configured = Settings.serverExecutable();
        if (configured != null) {
            Path path = Path.of(configured);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IllegalStateException(Settings.SERVER_ENV + "=" + configured + " is not an executable file.");
            }
            return path;
        }
        return onPath("redis-server");
    }

    /** The executable of that name in a directory of PATH, or null. */
    static Path onPath(String name) {
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return null;
        }
        boolean windows = File.separatorChar == '\\';
        for (String entry : pathVariable.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            for (String candidateName : windows ? List.of(name + ".exe", name) : List.of(name)) {
                Path candidate = Path.of(entry, candidateName);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    static RedisServerProcess start(Path executable) {
        return start(executable, RedisServerProcess::freePort);
    }

    /** Starts on ports from the supplier, moving on to the next while a port turns out to be taken. */
    static RedisServerProcess start(Path executable, IntSupplier ports) {
        return start(executable, ports, false, List.of(), null, Mode.DEFAULT);
    }

    /** A plain server with further command-line options, such as {@code --replicaof host port}. */
    static RedisServerProcess start(Path executable, IntSupplier ports, List<String> options) {
        return start(executable, ports, false, List.copyOf(options), null, Mode.DEFAULT);
    }

    /**
     * A plain server on a free port with further command-line options (TLS files, ACL users, AOF) and
     * the given mode: TLS only, data kept across restarts, readiness checked as {@code mode.access()} says.
     */
    static RedisServerProcess start(Path executable, List<String> options, Mode mode) {
        return start(executable, RedisServerProcess::freePort, false, List.copyOf(options), null, mode);
    }

    /**
     * Starts {@code redis-server sentinel.conf --sentinel} with the given lines of configuration
     * ({@code sentinel monitor ...} and the like), written afresh at every launch. Its port, bind address
     * and directory are set as for any other server here.
     */
    static RedisServerProcess startSentinel(Path executable, IntSupplier ports, List<String> sentinelConfig) {
        return start(executable, ports, false, List.of(), List.copyOf(sentinelConfig), Mode.DEFAULT);
    }

    /**
     * Starts a node with {@code --cluster-enabled yes}, its client and cluster bus ports both from the
     * supplier, and the given further options (node timeout and the like). The node is alone until the
     * caller forms a cluster; {@link #restart()} keeps its {@code nodes.conf}, so it rejoins.
     */
    static RedisServerProcess startClusterNode(Path executable, IntSupplier ports, List<String> clusterOptions) {
        return start(executable, ports, true, List.copyOf(clusterOptions), null, Mode.DEFAULT);
    }

    private static RedisServerProcess start(Path executable, IntSupplier ports, boolean clusterNode,
            List<String> options, List<String> sentinelConfig, Mode mode) {
        reapOrphansOnce();
        Path dir;
        try {
            dir = Files.createTempDirectory(DIR_PREFIX);
            Files.writeString(dir.resolve(OWNER_PID), identity(ProcessHandle.current()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for redis-server", e);
        }
        try {
            PortTakenException lastTaken = null;
            for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
                int port = ports.getAsInt();
                // An explicit bus port (--cluster-port): Redis' default, port + 10000, is beyond 65535
                // for many of the ports the system hands out.
                int busPort = clusterNode ? ports.getAsInt() : 0;
                if (port == RESERVED_PORT || busPort == RESERVED_PORT) {
                    continue;
                }
                try {
                    return new RedisServerProcess(executable, dir, port, busPort, options, sentinelConfig, mode,
                            launch(executable, dir, port, busPort, options, sentinelConfig, mode));
                } catch (PortTakenException e) {
                    lastTaken = e;
                }
            }
            throw new IllegalStateException("redis-server found no free port after " + PORT_ATTEMPTS + " attempts"
                    + (lastTaken == null ? "" : "; last: " + lastTaken.getMessage()));
        } catch (RuntimeException | Error e) {
            deleteRecursively(dir);
            throw e;
        }
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    /** The process id of the current (or last) redis-server process. */
    long pid() {
        return process.pid();
    }

    /** The temporary directory; deleted by {@link #stop()}. */
    Path dir() {
        return dir;
    }

    @Override
    public synchronized void kill() {
        checkNotStopped();
        // destroyForcibly is SIGKILL on Unix: no shutdown, no save, like a crash.
        process.destroyForcibly();
        awaitExit(process, 5);
    }

    @Override
    public synchronized void pause() {
        signal("STOP");
    }

    @Override
    public synchronized void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException("Cannot signal redis-server " + process.pid(), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while signalling redis-server " + process.pid(), ex);
        }
    }

    @Override
    public synchronized void restart() {
        checkNotStopped();
        if (process.isAlive()) {
            terminate(process);
        }
        try {
            process = launch(executable, dir, port, busPort, options, sentinelConfig, mode);
        } catch (PortTakenException e) {
            throw new IllegalStateException("cannot restart redis-server on " + HOST + ":" + port
                    + ": another process took the port meanwhile", e);
        }
    }

    @Override
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        terminate(process);
        deleteRecursively(dir);
    }

    @Override
    public String toString() {
        return (sentinelConfig == null ? "redis-server " : "redis-server --sentinel ") + executable + " on " + HOST + ":" + port
                + (busPort == 0 ? "" : " (cluster bus " + busPort + ")") + " (pid " + process.pid() + ")";
    }

    private void checkNotStopped() {
        if (stopped) {
            throw new IllegalStateException("this redis-server was stopped (close() was called)");
        }
    }

    /** Runs redis-server on the port and returns once it answers PING as the server using our directory. */
    private static Process launch(Path executable, Path dir, int port, int busPort, List<String> options,
            List<String> sentinelConfig, Mode mode) throws PortTakenException {
        Path log = dir.resolve(LOG);
        long logOffset = sizeOf(log);
        if (!mode.keepData()) {
            clearData(dir, busPort != 0);
        }
        List<String> command = new ArrayList<>(List.of(executable.toString()));
        if (sentinelConfig != null) {
            Path config = dir.resolve(SENTINEL_CONF);
            try {
                Files.write(config, sentinelConfig);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + config, e);
            }
            // The file must come first; a sentinel rewrites it with what it learns (replicas, other sentinels).
            command.addAll(List.of(config.toString(), "--sentinel"));
        }
        // A TLS server listens on its TLS port only, so that no client reaches it in plain text.
        command.addAll(mode.tls() ? List.of("--port", "0", "--tls-port", Integer.toString(port))
                : List.of("--port", Integer.toString(port)));
        command.addAll(List.of(
                "--bind", HOST,
                "--dir", dir.toString(),
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no"));
        if (busPort != 0) {
            command.addAll(List.of(
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", NODES_CONF,
                    "--cluster-port", Integer.toString(busPort)));
        }
        command.addAll(options);
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true) // config errors go to stderr before the log exists
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + executable + ": " + e.getMessage(), e);
        }
        try {
            Files.writeString(dir.resolve(SERVER_PID), identity(process.toHandle()));
        } catch (IOException e) {
            // Only the orphan reaper reads this file; the server itself is fine.
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STARTUP_TIMEOUT_MILLIS);
        while (true) {
            if (!process.isAlive()) {
                awaitExit(process, 1);
                String tail = tail(log, logOffset);
                if (tail.contains("Address already in use") || tail.contains("Failed listening on port")) {
                    throw new PortTakenException("port " + port + " is in use");
                }
                throw new IllegalStateException(describe(executable, port) + " exited with code "
                        + process.exitValue() + "." + logSection(tail));
            }
            // A TLS handshake takes longer than a PING, more so on a loaded machine.
            if (Resp.ping(mode.access(), HOST, port, mode.tls() ? 1_000 : 250)) {
                if (sentinelConfig != null ? hasProcessId(port, process.pid()) : usesDirectory(mode.access(), port, dir)) {
                    return process;
                }
                // Someone else answers on this port; ours will fail to bind (or already has).
                terminate(process);
                throw new PortTakenException("port " + port + " is served by another Redis");
            }
            if (System.nanoTime() > deadline) {
                terminate(process);
                throw new IllegalStateException(describe(executable, port) + " did not answer PING within "
                        + STARTUP_TIMEOUT_MILLIS / 1000 + " s." + logSection(tail(log, logOffset)));
            }
            sleep(20);
        }
    }

    private static String describe(Path executable, int port) {
        return "redis-server (" + executable + ") on " + HOST + ":" + port;
    }

    private static String logSection(String tail) {
        return tail.isBlank() ? " It wrote nothing to its log." : " Last lines of its log:\n" + tail.indent(4).stripTrailing();
    }

    /** Our temporary directory is unique, so a server reporting it as its dir is ours and no one else's. */
    private static boolean usesDirectory(Resp.Access access, int port, Path dir) {
        try {
            Object reply = Resp.call(access, HOST, port, 1_000, "CONFIG", "GET", "dir");
            return reply instanceof List<?> list && list.size() == 2
                    && String.valueOf(list.get(1)).endsWith(dir.getFileName().toString());
        } catch (IOException e) {
            return false;
        }
    }

    /** A sentinel knows no CONFIG command, but INFO tells its process id. */
    private static boolean hasProcessId(int port, long pid) {
        try {
            Object reply = Resp.call(HOST, port, 1_000, "INFO", "server");
            return reply instanceof String info && info.lines().anyMatch(line -> line.strip().equals("process_id:" + pid));
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() {
        for (int i = 0; i < 10; i++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
                int port = socket.getLocalPort();
                if (port != RESERVED_PORT) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot find a free port on " + HOST, e);
            }
        }
        throw new IllegalStateException("cannot find a free port on " + HOST);
    }

    /** SIGTERM first so Redis exits cleanly; SIGKILL if it does not within a few seconds. */
    private static void terminate(Process process) {
        process.destroy();
        if (!awaitExit(process, 5)) {
            process.destroyForcibly();
            awaitExit(process, 5);
        }
    }

    private static boolean awaitExit(Process process, int seconds) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor(seconds, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted = true; // finish stopping; the interrupt is restored below
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * restart() of a server that does not keep its data promises empty data: remove whatever a previous run
     * may have written, keep log and pid files, and a cluster node's nodes.conf (without it the node would
     * come back as a stranger).
     */
    private static void clearData(Path dir, boolean clusterNode) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.equals(LOG) && !name.equals(OWNER_PID) && !name.equals(SERVER_PID)
                        && !(clusterNode && name.equals(NODES_CONF))) {
                    deleteRecursively(entry);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + dir, e);
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The last lines written to the log since offset. */
    static String tail(Path log, long offset) {
        try {
            byte[] bytes = Files.readAllBytes(log);
            int from = (int) Math.min(offset, bytes.length);
            List<String> lines = new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort: a leftover temp directory is harmless.
        }
    }

    // Orphans: a JVM killed with SIGKILL runs no shutdown hook, so its redis-server lives on. The next
    // JVM stops servers whose owning JVM is gone, recognising both by pid and start time.

    private static String identity(ProcessHandle handle) {
        return handle.pid() + " " + handle.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }

    /** The live process a pid file names, if it is still that process: same pid and same start time. */
    private static Optional<ProcessHandle> sameLiveProcess(long[] recorded) {
        return ProcessHandle.of(recorded[0])
                .filter(ProcessHandle::isAlive)
                .filter(h -> recorded[1] == -1
                        || h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == recorded[1]);
    }

    /** pid and start time (epoch millis, or -1 when unknown) from a pid file; null when unreadable. */
    private static long[] readIdentity(Path pidFile) {
        try {
            String[] parts = Files.readString(pidFile).trim().split(" ");
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static void reapOrphansOnce() {
        if (!ORPHANS_REAPED.compareAndSet(false, true)) {
            return;
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, DIR_PREFIX + "*")) {
            for (Path dir : dirs) {
                long[] owner = readIdentity(dir.resolve(OWNER_PID));
                // Unreadable: another JVM may be writing it right now. Leave such directories alone.
                if (owner == null || sameLiveProcess(owner).isPresent()) {
                    continue;
                }
                long[] server = readIdentity(dir.resolve(SERVER_PID));
                if (server != null && server[1] != -1) { // without a start time the pid may be reused
                    sameLiveProcess(server).ifPresent(ProcessHandle::destroyForcibly);
                }
                deleteRecursively(dir);
            }
        } catch (IOException | RuntimeException e) {
            // Best effort only.
        }
    }

    /** The port was taken between choosing it and the server binding it: choose another. */
    private static final class PortTakenException extends Exception {
        PortTakenException(String message) {
            super(message);
        }
    }
}
