package dev.limiter.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real Redis for tests: the one named by {@code LIMITER_TEST_REDIS_URL}, else a Testcontainers
 * {@code redis:7} container when Docker answers, else a {@code redis-server} process on a free loopback port.
 *
 * <p>Most tests use {@link #shared()}; tests that stop, kill or restart Redis take a private one with
 * {@link #start()} and close it:
 * <pre>{@code
 * try (TestRedis redis = TestRedis.start()) {
 *     client.connect(redis.url());
 *     redis.kill();      // Redis is gone, the port stays reserved
 *     redis.restart();   // back on the same port, empty
 * }
 * }</pre>
 *
 * <p>Tests that need a Redis with data kept across a crash, with TLS or with an ACL user build one with
 * {@link #server()}; it is always a local {@code redis-server} process:
 * <pre>{@code
 * TestRedis.serverUnavailable().ifPresent(Assumptions::abort);   // no redis-server binary here
 * try (TestRedis redis = TestRedis.server().tls().user("limiter", "secret").start()) {
 *     ... redis.tlsCertificate(), redis.username(), redis.password() ...
 * }
 * }</pre>
 *
 * <p>Settings, read from a system property or else the environment variable:
 * <ul>
 * <li>{@code limiter.test.redis.url} / {@code LIMITER_TEST_REDIS_URL}:
 *     {@code redis://[user:password@]host:port[/db]} of a Redis that tests may use; nothing is started.</li>
 * <li>{@code limiter.test.redis.docker} / {@code LIMITER_TEST_REDIS_DOCKER}: {@code false} never uses
 *     Docker; {@code true} always asks Testcontainers; unset ({@code auto}) asks it only when a Docker
 *     endpoint appears to exist ({@code DOCKER_HOST}, a known socket, a Docker context), which keeps
 *     machines without Docker fast and free of Testcontainers' error logging.</li>
 * <li>{@code limiter.test.redis.server} / {@code LIMITER_TEST_REDIS_SERVER}: the path of the
 *     {@code redis-server} binary, instead of looking it up on {@code PATH}.</li>
 * </ul>
 * A Redis started here never uses port 6379 and never outlives the JVM that started it. Which Redis the
 * tests use is logged through {@link System.Logger} (logger {@code dev.limiter.test.TestRedis}): at INFO for
 * the first one in a JVM, with the reasons the sources before it were passed over, at DEBUG for the others.
 */
public final class TestRedis implements AutoCloseable {

    /** How a {@link TestRedis} was obtained. */
    public enum Source {
        /** Given by {@code LIMITER_TEST_REDIS_URL}; not started nor stopped by this library. */
        URL,
        /** A {@code redis:7} container started through Testcontainers. */
        TESTCONTAINERS,
        /** A {@code redis-server} process started on a free port of 127.0.0.1. */
        REDIS_SERVER
    }

    private static final String HOW_TO_FIX = "To give tests a Redis, do one of: set " + Settings.URL_ENV
            + "=redis://host:port to a Redis they may use; start Docker, with org.testcontainers:testcontainers as a test"
            + " dependency (Testcontainers then runs " + Settings.DOCKER_IMAGE + "); or install redis-server"
            + " (e.g. apt-get install redis-server, brew install redis) or point " + Settings.SERVER_ENV + " at it.";

    /** Says which Redis the tests use: at INFO the first time in this JVM, at DEBUG afterwards. */
    private static final System.Logger LOGGER = System.getLogger(TestRedis.class.getName());

    private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();

    /** The user as which this library checks a {@link Builder#user} server; tests log in as theirs. */
    private static final String ADMIN_USER = "limiter-test-admin";

    /** Everything started and not yet stopped, for the shutdown hook. */
    private static final Started<TestRedis> STARTED = new Started<>("limiter-test-redis-shutdown", TestRedis::stopServer);

    private final Source source;
    private final String host;
    private final int port;
    private final String url;
    private final Server server;
    private final boolean isShared;
    /** PEM certificate of a TLS server ({@link Builder#tls()}); null otherwise. */
    private final Path tlsCertificate;
    /** The ACL user of {@link Builder#user}; null otherwise. */
    private final String username;
    private final String password;
    /** Files of this instance outside the server's own directory (TLS certificate and key); deleted on close. */
    private final Path ownFiles;
    private boolean closed;

    private TestRedis(Source source, String host, int port, String url, Server server, boolean isShared) {
        this(source, host, port, url, server, isShared, null, null, null, null);
    }

    private TestRedis(Source source, String host, int port, String url, Server server, boolean isShared,
            Path tlsCertificate, String username, String password, Path ownFiles) {
        this.source = source;
        this.host = host;
        this.port = port;
        this.url = url;
        this.server = server;
        this.isShared = isShared;
        this.tlsCertificate = tlsCertificate;
        this.username = username;
        this.password = password;
        this.ownFiles = ownFiles;
    }

    /**
     * The Redis shared by all tests of this JVM: started on first use, stopped when the JVM exits.
     * Thread-safe. Its {@link #close()} does nothing, so other tests keep it, and it cannot be killed
     * or restarted. If it cannot be obtained, every call throws the same explanation.
     *
     * @return the shared instance, always the same object
     * @throws IllegalStateException if no Redis can be found or started (the message says how to fix it)
     */
    public static TestRedis shared() {
        return STARTED.shared(() -> obtain(true));
    }

    /**
     * A new private Redis owned by the caller, who must {@link #close()} it (it is also stopped at JVM exit).
     * For tests that {@link #kill()} or {@link #restart()} Redis. With {@code LIMITER_TEST_REDIS_URL} set
     * it is that Redis, and nothing is started.
     *
     * @return a new instance, empty unless it comes from {@code LIMITER_TEST_REDIS_URL}
     * @throws IllegalStateException if no Redis can be found or started (the message says how to fix it)
     */
    public static TestRedis start() {
        return obtain(false);
    }

    /**
     * A builder of a private {@code redis-server} process with what the other sources cannot give: data
     * kept across {@link #kill()} and {@link #restart()}, TLS, an ACL user. It always runs the
     * {@code redis-server} binary ({@code LIMITER_TEST_REDIS_SERVER}, else {@code PATH}), whatever
     * {@code LIMITER_TEST_REDIS_URL} and Docker would give {@link #start()}; where there is no such binary,
     * {@link #serverUnavailable()} says so, for tests to skip.
     *
     * @return a new builder of a plain, empty, non-persistent server
     */
    public static Builder server() {
        return new Builder();
    }

    /**
     * Why {@link #server()} cannot start a {@code redis-server} on this machine, for a test to skip with.
     *
     * @return the reason, or empty when the binary is there
     */
    public static Optional<String> serverUnavailable() {
        try {
            return RedisServerProcess.findExecutable() != null ? Optional.empty()
                    : Optional.of("needs the redis-server binary (on PATH or named by " + Settings.SERVER_ENV
                            + "), which TestRedis.server() always starts; Docker and " + Settings.URL_ENV + " cannot give it");
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage());
        }
    }

    /**
     * The host to connect to.
     *
     * @return a host name or address, for example {@code 127.0.0.1}
     */
    public String host() {
        return host;
    }

    /**
     * The port to connect to; it stays the same across {@link #restart()}.
     *
     * @return the TCP port, never 6379 for a Redis started here
     */
    public int port() {
        return port;
    }

    /**
     * The address in the form Redis clients accept.
     *
     * @return {@code redis://host:port}; for {@link Source#URL} the configured address, with its
     *     user, password and database if it had them
     */
    public String url() {
        return url;
    }

    /**
     * The certificate of a TLS server, as a PEM file that clients trust (for Spring Boot, an SSL bundle's
     * {@code truststore.certificate}). It is self-signed, for {@code 127.0.0.1} and {@code localhost}.
     *
     * @return the PEM file, or empty unless started with {@link Builder#tls()}
     */
    public Optional<Path> tlsCertificate() {
        return Optional.ofNullable(tlsCertificate);
    }

    /**
     * The ACL user clients must log in as.
     *
     * @return the name given to {@link Builder#user}, or empty when the server has none (a
     *     {@code LIMITER_TEST_REDIS_URL} keeps its own user in {@link #url()})
     */
    public Optional<String> username() {
        return Optional.ofNullable(username);
    }

    /**
     * The password of {@link #username()}.
     *
     * @return the password given to {@link Builder#user}, or empty when the server has no user
     */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /**
     * How this Redis was obtained, which decides what {@link #kill()} and {@link #close()} can do.
     *
     * @return the source
     */
    public Source source() {
        return source;
    }

    /**
     * Stops the Redis this object started and releases its port and files. Does nothing for
     * {@link Source#URL} and for {@link #shared()}, which lives until the JVM exits. Idempotent.
     */
    @Override
    public void close() {
        if (!isShared) {
            stopServer();
        }
    }

    /**
     * Stops the server abruptly, as a crash would (SIGKILL, or {@code docker kill}), keeping its port
     * for {@link #restart()}. Clients then see connection failures.
     *
     * @throws UnsupportedOperationException for {@link Source#URL} and for {@link #shared()}
     * @throws IllegalStateException after {@link #close()}
     */
    public void kill() {
        owned("kill()").kill();
    }

    /**
     * Freezes the server, as a stalled Redis would be (SIGSTOP, or {@code docker pause}): connections
     * stay open but nothing is answered until {@link #resume()}. For tests of timeouts.
     *
     * @throws UnsupportedOperationException for {@link Source#URL} and for {@link #shared()}
     * @throws IllegalStateException after {@link #close()}
     */
    public void pause() {
        owned("pause()").pause();
    }

    /**
     * Lets a paused server answer again, with its data intact.
     *
     * @throws UnsupportedOperationException for {@link Source#URL} and for {@link #shared()}
     * @throws IllegalStateException after {@link #close()}
     */
    public void resume() {
        owned("resume()").resume();
    }

    /**
     * Starts the server again on the same host and port, with no data (with the data it had for a
     * {@link Builder#persistent()} server), and returns once it answers PING. Works after {@link #kill()}
     * and on a running server (which is stopped first).
     *
     * @throws UnsupportedOperationException for {@link Source#URL} and for {@link #shared()}
     * @throws IllegalStateException after {@link #close()}, or if the port was taken meanwhile
     */
    public void restart() {
        owned("restart()").restart();
    }

    @Override
    public String toString() {
        return "TestRedis[" + source + " " + RedisUrl.masked(url) + (isShared ? ", shared" : "") + "]";
    }

    private Server owned(String operation) {
        if (source == Source.URL) {
            throw new UnsupportedOperationException(operation + " is not possible for the Redis given by "
                    + Settings.URL_ENV + " (" + RedisUrl.masked(url) + "): this library did not start it."
                    + " Unset " + Settings.URL_ENV + " to let tests start their own Redis.");
        }
        if (isShared) {
            throw new UnsupportedOperationException(operation + " is not possible for TestRedis.shared(),"
                    + " which other tests use; take a private instance with TestRedis.start().");
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException(operation + " after close() of " + this);
            }
        }
        return server;
    }

    private synchronized void stopServer() {
        if (closed) {
            return;
        }
        closed = true;
        STARTED.untrack(this);
        if (server != null) {
            server.stop();
        }
        if (ownFiles != null) {
            RedisServerProcess.deleteRecursively(ownFiles);
        }
    }

    private static TestRedis obtain(boolean isShared) {
        String configuredUrl = Settings.url();
        if (configuredUrl != null) {
            RedisUrl parsed = RedisUrl.parse(configuredUrl);
            TestRedis redis = new TestRedis(Source.URL, parsed.host(), parsed.port(), parsed.toString(), null, isShared);
            announce(redis, List.of());
            return redis;
        }
        List<String> problems = new ArrayList<>();
        problems.add(Settings.URL_ENV + " is not set.");
        Server server = tryDocker(problems);
        Source source = Source.TESTCONTAINERS;
        if (server == null) {
            server = tryRedisServer(problems);
            source = Source.REDIS_SERVER;
        }
        if (server == null) {
            throw new IllegalStateException("No Redis for tests.\n- " + String.join("\n- ", problems)
                    + "\n" + HOW_TO_FIX);
        }
        TestRedis redis = new TestRedis(source, server.host(), server.port(),
                "redis://" + RedisUrl.hostForUrl(server.host()) + ":" + server.port(), server, isShared);
        STARTED.track(redis);
        announce(redis, problems.subList(1, problems.size()));
        return redis;
    }

    /**
     * Logs which Redis {@code redis} is, and why the sources before it were passed over: at INFO for the
     * first Redis of this JVM, so a test run says once where its Redis comes from, at DEBUG for the others.
     */
    private static void announce(TestRedis redis, List<String> passedOver) {
        System.Logger.Level level = ANNOUNCED.compareAndSet(false, true) ? System.Logger.Level.INFO : System.Logger.Level.DEBUG;
        if (LOGGER.isLoggable(level)) {
            LOGGER.log(level, describe(redis) + (passedOver.isEmpty() ? "" : " (" + String.join(" ", passedOver) + ")"));
        }
    }

    /** Which Redis the tests use, in a sentence. */
    static String describe(TestRedis redis) {
        String which = (redis.isShared ? "the Redis shared by this JVM's tests" : "a Redis of its own");
        return switch (redis.source) {
            case URL -> "Tests use " + RedisUrl.masked(redis.url) + " as " + which + ", named by " + Settings.URL_ENV
                    + "; it is neither started nor stopped here";
            case TESTCONTAINERS -> "Tests use " + which + ": a " + redis.server + " started through Testcontainers, stopped when the "
                    + "JVM exits";
            case REDIS_SERVER -> "Tests use " + which + ": " + redis.server + ", stopped when the JVM exits";
        };
    }

    private static Server tryDocker(List<String> problems) {
        Settings.DockerMode mode = Settings.dockerMode();
        if (mode == Settings.DockerMode.OFF) {
            problems.add("Docker: disabled by " + Settings.DOCKER_ENV + "=false.");
            return null;
        }
        if (!testcontainersPresent()) {
            problems.add("Docker: Testcontainers (org.testcontainers:testcontainers) is not on the classpath.");
            return null;
        }
        if (mode == Settings.DockerMode.AUTO && !Settings.dockerEndpointLikely()) {
            problems.add("Docker: no Docker endpoint found (no DOCKER_HOST, no docker.sock, no Docker context);"
                    + " set " + Settings.DOCKER_ENV + "=true to ask Testcontainers anyway.");
            return null;
        }
        try {
            Server server = DockerRedis.startIfDockerAvailable();
            if (server == null) {
                problems.add("Docker: Testcontainers found no running Docker engine.");
            }
            return server;
        } catch (RuntimeException | LinkageError e) {
            problems.add("Docker: starting " + Settings.DOCKER_IMAGE + " failed: " + e);
            return null;
        }
    }

    private static Server tryRedisServer(List<String> problems) {
        try {
            Path executable = RedisServerProcess.findExecutable();
            if (executable == null) {
                problems.add("redis-server: not found on PATH.");
                return null;
            }
            return RedisServerProcess.start(executable);
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
            return null;
        }
    }

    /** Checked by name so that this class never links against Testcontainers when it is absent. */
    private static boolean testcontainersPresent() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, TestRedis.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Builds a private {@code redis-server} process; see {@link TestRedis#server()}. Each option adds to
     * the others: a persistent TLS server with a user is possible.
     */
    public static final class Builder {

        private boolean persistent;
        private boolean tls;
        private String username;
        private String password;

        private Builder() {
        }

        /**
         * Keeps the data across {@link TestRedis#kill()} and {@link TestRedis#restart()}: every write is in
         * the append-only file before it is answered ({@code appendonly yes}, {@code appendfsync always}),
         * so a server killed as by a crash comes back with every key it acknowledged.
         *
         * @return this builder
         */
        public Builder persistent() {
            this.persistent = true;
            return this;
        }

        /**
         * Serves over TLS only, on {@link TestRedis#port()}, with a certificate made at start for
         * {@code 127.0.0.1} and {@code localhost} ({@link TestRedis#tlsCertificate()}); clients are not
         * asked for a certificate.
         *
         * @return this builder
         */
        public Builder tls() {
            this.tls = true;
            return this;
        }

        /**
         * Turns the {@code default} user off, so that every client must log in, and adds this user with
         * the rights an application is typically given: every key and channel, every command except
         * those Redis classes as dangerous ({@code +@all -@dangerous}: no KEYS, CONFIG, INFO, FLUSHALL,
         * DEBUG, ...).
         *
         * @param username the user's name
         * @param password the user's password
         * @return this builder
         */
        public Builder user(String username, String password) {
            this.username = Objects.requireNonNull(username, "username");
            this.password = Objects.requireNonNull(password, "password");
            if (username.isBlank() || username.equals("default") || username.chars().anyMatch(Character::isWhitespace)
                    || password.isEmpty() || password.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("the user needs a name other than 'default' and a password, both without spaces");
            }
            return this;
        }

        /**
         * Starts the server on a free loopback port and returns once it answers PING (over TLS, and as
         * its user, when so built). The caller must {@link TestRedis#close()} it; it is also stopped at JVM exit.
         *
         * @return the running server, of {@link Source#REDIS_SERVER}
         * @throws IllegalStateException if there is no {@code redis-server} binary ({@link #serverUnavailable()}
         *     says why) or it does not start (the message has the end of its log)
         */
        public TestRedis start() {
            serverUnavailable().ifPresent((reason) -> {
                throw new IllegalStateException("TestRedis.server() " + reason);
            });
            Path executable = RedisServerProcess.findExecutable();
            List<String> options = new ArrayList<>();
            Path ownFiles = null;
            SelfSignedCertificate certificate = null;
            Resp.Access access = Resp.Access.PLAIN;
            try {
                if (persistent) {
                    options.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
                }
                if (tls) {
                    ownFiles = Files.createTempDirectory("limiter-test-tls-");
                    certificate = SelfSignedCertificate.create(ownFiles);
                    options.addAll(List.of("--tls-cert-file", certificate.certificate().toString(),
                            "--tls-key-file", certificate.privateKey().toString(),
                            "--tls-ca-cert-file", certificate.certificate().toString(),
                            "--tls-auth-clients", "no"));
                    access = new Resp.Access(certificate.trustingSocketFactory(), null, null);
                }
                if (username != null) {
                    // This library checks readiness and ownership (CONFIG GET dir) as a user of its own, since
                    // the test's user may not run CONFIG.
                    String adminPassword = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
                    options.addAll(List.of("--user", "default", "off",
                            "--user", username, "on", ">" + password, "~*", "&*", "+@all", "-@dangerous",
                            "--user", ADMIN_USER, "on", ">" + adminPassword, "~*", "&*", "+@all"));
                    access = new Resp.Access(access.tls(), ADMIN_USER, adminPassword);
                }
                Server server = RedisServerProcess.start(executable, options, new RedisServerProcess.Mode(tls, persistent, access));
                TestRedis redis = new TestRedis(Source.REDIS_SERVER, server.host(), server.port(), url(server), server, false,
                        tls ? certificate.certificate() : null, username, password, ownFiles);
                STARTED.track(redis);
                announce(redis, List.of());
                return redis;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temporary directory for the TLS certificate", e);
            } catch (RuntimeException | Error e) {
                if (ownFiles != null) {
                    RedisServerProcess.deleteRecursively(ownFiles);
                }
                throw e;
            }
        }

        private String url(Server server) {
            String userInfo = (username == null) ? "" : encode(username) + ":" + encode(password) + "@";
            return (tls ? "rediss://" : "redis://") + userInfo + RedisUrl.hostForUrl(server.host()) + ":" + server.port();
        }

        private static String encode(String text) {
            return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
        }
    }
}
