package dev.limiter.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.limiter.test.TestRedis;

/**
 * The sample application over HTTP on loopback: {@code GET /api/orders} (a {@code @RateLimited}
 * method, limiter {@code orders}, key {@code X-User-Id}) with Limiter off, and limited on Redis as
 * configured in several ways, with a limit that is never reached. Every configuration runs in its own
 * JVM, all started at once and measured in alternating rounds, so that a machine that slows down
 * slows all of them alike. The load generator is in this JVM: closed-loop connections, each a thread
 * writing raw HTTP/1.1 requests on one kept-alive socket. Options: {@code --quick},
 * {@code --rounds N}, {@code --seconds S} (per configuration and round), {@code --warmup S},
 * {@code --connections N}, {@code --users N}, {@code --jar PATH} (the sample's jar, by default
 * {@code sample-app/target/sample-app.jar}), {@code --only REGEX} (configurations whose name matches,
 * besides the unlimited one), {@code --app-jvm-arg ARG} (repeatable: for the applications' JVMs, such as
 * a profiler agent), {@code --out FILE}.
 */
public final class HttpBenchmark {

    /** One way the sample runs: its name in the table, and the properties that make it so. */
    record Configuration(String name, List<String> properties) {
    }

    static final List<Configuration> CONFIGURATIONS = List.of(
            new Configuration("unlimited (limiter.enabled=false)", List.of("--limiter.enabled=false")),
            new Configuration("Redis", List.of("--limiter.local-deny-cache.enabled=false")),
            new Configuration("Redis, deny cache", List.of("--limiter.local-deny-cache.enabled=true")),
            new Configuration("Redis, deny cache, batching",
                    List.of("--limiter.local-deny-cache.enabled=true", "--limiter.redis.batching.enabled=true")),
            // Each user calls a few times a second: a lease of 20 permits for 1 s serves most of them locally.
            new Configuration("Redis, leasing (20 permits, 1 s)",
                    List.of("--limiter.local-deny-cache.enabled=true", "--limiter.limiters.orders.lease.permits=20",
                            "--limiter.limiters.orders.lease.ttl=1s")),
            // Longer leases: about one round trip per 100 requests of a user, each instance able to overshoot by a lease.
            new Configuration("Redis, leasing (100 permits, 10 s)",
                    List.of("--limiter.local-deny-cache.enabled=true", "--limiter.limiters.orders.lease.permits=100",
                            "--limiter.limiters.orders.lease.ttl=10s")));

    private HttpBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        int seconds = 10;
        int warmup = 20;
        int connections = 32;
        int users = 1000;
        Path jar = Path.of("sample-app/target/sample-app.jar");
        Path out = null;
        Pattern only = null;
        List<String> jvmArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> {
                    rounds = 1;
                    seconds = 2;
                    warmup = 3;
                }
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--connections" -> connections = Integer.parseInt(args[++i]);
                case "--users" -> users = Integer.parseInt(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--only" -> only = Pattern.compile(args[++i]);
                case "--app-jvm-arg" -> jvmArgs.add(args[++i]);
                default -> {
                    System.err.println("Usage: HttpBenchmark [--quick] [--rounds N] [--seconds S] [--warmup S] [--connections N] "
                            + "[--users N] [--jar sample-app.jar] [--only REGEX] [--app-jvm-arg ARG]... [--out FILE]");
                    System.exit(2);
                }
            }
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No sample application at " + jar.toAbsolutePath()
                    + ": build it with ./mvnw -pl sample-app -am -DskipTests package, or give --jar");
        }
        String loadBefore = loadAverage();
        long started = System.nanoTime();
        Map<Configuration, List<Round>> results = new LinkedHashMap<>();
        List<App> apps = new ArrayList<>();
        try (TestRedis redis = TestRedis.start()) {
            for (Configuration configuration : CONFIGURATIONS) {
                if (only == null || only.matcher(configuration.name()).find() || configuration == CONFIGURATIONS.get(0)) {
                    apps.add(App.start(jar, configuration, redis, jvmArgs));
                }
            }
            for (App app : apps) {
                app.awaitReady(Duration.ofSeconds(120));
            }
            for (App app : apps) {
                Load.run(app.port, connections, users, Duration.ofSeconds(warmup));
                System.err.printf(Locale.ROOT, "warmed up: %s%n", app.configuration.name());
            }
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < apps.size(); i++) {
                    // Rotated each round, so no configuration always runs first or after the same one.
                    App app = apps.get((i + round) % apps.size());
                    Round measured = Load.run(app.port, connections, users, Duration.ofSeconds(seconds));
                    results.computeIfAbsent(app.configuration, (c) -> new ArrayList<>()).add(measured);
                    System.err.printf(Locale.ROOT, "round %d %-45s %,10.0f requests/s p50 %6.0f us p99 %6.0f us, non-200 %d%n", round + 1,
                            app.configuration.name(), measured.perSecond(), measured.p50Micros(), measured.p99Micros(), measured.failed());
                }
            }
            Map<Configuration, String> decisions = new LinkedHashMap<>();
            for (App app : apps) {
                decisions.put(app.configuration, app.decisions());
            }
            String markdown = report(results, decisions, connections, users, seconds, rounds, warmup, loadBefore,
                    Duration.ofNanos(System.nanoTime() - started), redis);
            System.out.println(markdown);
            if (out != null) {
                Files.writeString(out, markdown, StandardCharsets.UTF_8);
            }
        }
        finally {
            for (App app : apps) {
                app.process.destroy();
            }
            for (App app : apps) {
                app.process.waitFor(20, TimeUnit.SECONDS);
                app.process.destroyForcibly();
            }
        }
        System.exit(0);
    }

    private static String report(Map<Configuration, List<Round>> results, Map<Configuration, String> decisions, int connections, int users,
            int seconds, int rounds, int warmup, String loadBefore, Duration took, TestRedis redis) throws IOException {
        StringBuilder md = new StringBuilder();
        double unlimited = median(results.get(CONFIGURATIONS.get(0)), Round::perSecond);
        md.append("| sample app, GET /api/orders, ").append(connections).append(" connections | requests/s (median of ").append(rounds)
            .append(" rounds) | against unlimited | p50 | p99 | decisions by backend |\n|---|---|---|---|---|---|\n");
        for (Map.Entry<Configuration, List<Round>> entry : results.entrySet()) {
            List<Round> measured = entry.getValue();
            double perSecond = median(measured, Round::perSecond);
            long failed = measured.stream().mapToLong(Round::failed).sum();
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %+.1f%% | %.0f µs | %.0f µs | %s%s |%n", entry.getKey().name(), perSecond,
                    100 * (perSecond / unlimited - 1), median(measured, Round::p50Micros), median(measured, Round::p99Micros),
                    decisions.get(entry.getKey()), (failed > 0) ? "; " + failed + " answers not 200" : ""));
        }
        md.append(String.format(Locale.ROOT, "%nEach configuration in its own JVM (-Xmx512m), all running at once against one private "
                + "redis-server %s; %d s warm-up each, then %d rounds of %d s per configuration in rotated order; %d closed-loop "
                + "connections in the measuring JVM, %d users (X-User-Id), limit never reached. Machine: %s. Load average before %s, "
                + "after %s; %d s in all.%n", redisVersion(redis), warmup, rounds, seconds, connections, users, Machine.describe(), loadBefore,
                loadAverage(), took.toSeconds()));
        return md.toString();
    }

    /** The version the private Redis reports (INFO server), asked over a socket of its own. */
    static String redisVersion(TestRedis redis) {
        try (Socket socket = new Socket(redis.host(), redis.port())) {
            socket.getOutputStream().write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream input = new BufferedInputStream(socket.getInputStream());
            String header = Connection.line(input);
            byte[] body = input.readNBytes(Integer.parseInt(header.substring(1)));
            Matcher version = Pattern.compile("redis_version:([^\r\n]+)").matcher(new String(body, StandardCharsets.US_ASCII));
            return version.find() ? version.group(1) : "?";
        }
        catch (IOException | RuntimeException ex) {
            return "?";
        }
    }

    static double median(List<Round> rounds, java.util.function.ToDoubleFunction<Round> value) {
        double[] values = rounds.stream().mapToDouble(value).sorted().toArray();
        int n = values.length;
        return (n % 2 == 1) ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    static String loadAverage() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** One sample application running in a JVM of its own. */
    static final class App {

        final Configuration configuration;

        final Process process;

        final int port;

        private App(Configuration configuration, Process process, int port) {
            this.configuration = configuration;
            this.process = process;
            this.port = port;
        }

        static App start(Path jar, Configuration configuration, TestRedis redis, List<String> jvmArgs) throws IOException {
            int port = freePort();
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xms512m",
                    "-Xmx512m"));
            command.addAll(jvmArgs);
            command.addAll(List.of("-jar", jar.toString(), "--server.port=" + port, "--spring.data.redis.host=" + redis.host(),
                    "--spring.data.redis.port=" + redis.port(), "--limiter.key-prefix=bench-" + port,
                    // Never reached: every request is allowed, so what is measured is the cost of deciding.
                    "--limiter.limiters.orders.algorithm=token-bucket", "--limiter.limiters.orders.limit=1000000000",
                    "--limiter.limiters.orders.window=1s", "--logging.level.root=WARN",
                    // Connections stay open, as behind a load balancer (Tomcat closes one after 100 requests by default).
                    "--server.tomcat.max-keep-alive-requests=-1"));
            command.addAll(configuration.properties());
            return new App(configuration, launch(command, "http-benchmark-" + port), port);
        }

        void awaitReady(Duration timeout) throws Exception {
            awaitOk(process, configuration.name(), port, timeout);
        }

        /** The application's limiter.decisions counts of limiter orders, by outcome and backend: what proves it was limited. */
        String decisions() throws Exception {
            HttpClient client = HttpClient.newHttpClient();
            String text = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Pattern line = Pattern.compile("^limiter_decisions_total\\{([^}]*)\\} ([0-9.E+]+)$", Pattern.MULTILINE);
            Map<String, Double> counts = new TreeMap<>();
            Matcher matcher = line.matcher(text);
            while (matcher.find()) {
                String tags = matcher.group(1);
                if (!tags.contains("limiter=\"orders\"")) {
                    continue;
                }
                double count = Double.parseDouble(matcher.group(2));
                if (count > 0) {
                    counts.merge(tag(tags, "outcome") + " " + tag(tags, "backend"), count, Double::sum);
                }
            }
            if (counts.isEmpty()) {
                return "none";
            }
            List<String> parts = new ArrayList<>();
            counts.forEach((key, count) -> parts.add(String.format(Locale.ROOT, "%s %,.0f", key, count)));
            return String.join(", ", parts);
        }

        private static String tag(String tags, String name) {
            Matcher matcher = Pattern.compile(name + "=\"([^\"]*)\"").matcher(tags);
            return matcher.find() ? matcher.group(1) : "?";
        }
    }

    /** Starts {@code command}, its output appended to {@code <tmpdir>/<logName>.log}. */
    static Process launch(List<String> command, String logName) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(Path.of(System.getProperty("java.io.tmpdir"), logName + ".log").toFile()))
            .start();
    }

    /**
     * Waits until the application {@code name} in {@code process} answers {@code GET /api/orders} on
     * {@code port} with a 200, and answers that response.
     *
     * @throws IllegalStateException when the process exits or does not answer within {@code timeout}
     */
    static HttpResponse<String> awaitOk(Process process, String name, int port, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpClient client = HttpClient.newHttpClient();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see the log in " + System.getProperty("java.io.tmpdir"));
            }
            try {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/orders"))
                    .header("X-User-Id", "ready")
                    .build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return response;
                }
            }
            catch (IOException ex) {
                // Not listening yet.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not answer within " + timeout);
            }
            Thread.sleep(200);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** What one configuration made in one round. */
    record Round(long requests, long failed, double seconds, double p50Micros, double p99Micros) {

        double perSecond() {
            return requests / seconds;
        }
    }

    /** Closed-loop load: each connection sends its next request when the answer to the last one is read. */
    static final class Load {

        static Round run(int port, int connections, int users, Duration duration) throws Exception {
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(connections);
            Connection[] all = new Connection[connections];
            for (int i = 0; i < connections; i++) {
                all[i] = new Connection(port, i, connections, users, stop, done);
            }
            long start = System.nanoTime();
            for (Connection connection : all) {
                connection.thread.start();
            }
            Thread.sleep(duration.toMillis());
            stop.set(true);
            done.await(30, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - start) / 1e9;
            long requests = 0;
            long failed = 0;
            int latencies = 0;
            for (Connection connection : all) {
                if (connection.error != null) {
                    throw new IllegalStateException("connection failed", connection.error);
                }
                requests += connection.count;
                failed += connection.failed;
                latencies += connection.count;
            }
            long[] merged = new long[latencies];
            int at = 0;
            for (Connection connection : all) {
                System.arraycopy(connection.nanos, 0, merged, at, connection.count);
                at += connection.count;
            }
            Arrays.sort(merged);
            return new Round(requests, failed, seconds, percentile(merged, 0.50) / 1e3, percentile(merged, 0.99) / 1e3);
        }

        private static double percentile(long[] sorted, double quantile) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)];
        }
    }

    /** One kept-alive connection and the thread that drives it. */
    static final class Connection implements Runnable {

        final Thread thread = new Thread(this, "load");

        private final int port;

        private final byte[][] requests;

        private final AtomicBoolean stop;

        private final CountDownLatch done;

        long[] nanos = new long[1 << 16];

        int count;

        long failed;

        volatile Throwable error;

        Connection(int port, int index, int connections, int users, AtomicBoolean stop, CountDownLatch done) {
            this.port = port;
            this.stop = stop;
            this.done = done;
            // This connection's share of the users, asked for in turn.
            List<byte[]> mine = new ArrayList<>();
            for (int user = index; user < users; user += connections) {
                mine.add(("GET /api/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User-Id: user-" + user + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            }
            if (mine.isEmpty()) {
                mine.add(("GET /api/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User-Id: user-" + index + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            }
            this.requests = mine.toArray(byte[][]::new);
            thread.setDaemon(true);
        }

        @Override
        public void run() {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setTcpNoDelay(true);
                OutputStream output = socket.getOutputStream();
                InputStream input = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
                int next = 0;
                while (!stop.get()) {
                    long begin = System.nanoTime();
                    output.write(requests[next]);
                    output.flush();
                    next = (next + 1) % requests.length;
                    int status = readResponse(input);
                    long took = System.nanoTime() - begin;
                    if (status != 200) {
                        failed++;
                    }
                    if (count == nanos.length) {
                        nanos = Arrays.copyOf(nanos, nanos.length * 2);
                    }
                    nanos[count++] = took;
                }
            }
            catch (Throwable ex) {
                error = ex;
            }
            finally {
                done.countDown();
            }
        }

        /** Reads one response: status line, header fields, then a body by Content-Length or chunks; answers the status. */
        private static int readResponse(InputStream input) throws IOException {
            String statusLine = line(input);
            int status = Integer.parseInt(statusLine.substring(9, 12));
            long length = -1;
            boolean chunked = false;
            for (String header = line(input); !header.isEmpty(); header = line(input)) {
                int colon = header.indexOf(':');
                String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = header.substring(colon + 1).trim();
                if (name.equals("content-length")) {
                    length = Long.parseLong(value);
                }
                else if (name.equals("transfer-encoding") && value.equalsIgnoreCase("chunked")) {
                    chunked = true;
                }
            }
            if (chunked) {
                for (long size = Long.parseLong(line(input).trim(), 16); size > 0; size = Long.parseLong(line(input).trim(), 16)) {
                    skip(input, size);
                    line(input);
                }
                line(input);
            }
            else if (length > 0) {
                skip(input, length);
            }
            return status;
        }

        private static void skip(InputStream input, long bytes) throws IOException {
            long left = bytes;
            while (left > 0) {
                long skipped = input.skip(left);
                if (skipped <= 0) {
                    if (input.read() < 0) {
                        throw new IOException("connection closed in a body");
                    }
                    skipped = 1;
                }
                left -= skipped;
            }
        }

        static String line(InputStream input) throws IOException {
            StringBuilder line = new StringBuilder(64);
            int c;
            while ((c = input.read()) != '\n') {
                if (c < 0) {
                    throw new IOException("connection closed");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }

    /** The machine, as the figures name it. */
    static final class Machine {

        static String describe() {
            String cpu = "?";
            try {
                for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                    if (line.startsWith("model name")) {
                        cpu = line.substring(line.indexOf(':') + 1).trim();
                        break;
                    }
                }
            }
            catch (IOException ex) {
                // Not Linux: the CPU goes unnamed.
            }
            long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
            return String.format(Locale.ROOT, "%d cores (%s), %.1f GiB, %s %s", Runtime.getRuntime().availableProcessors(), cpu,
                    memory / (1024.0 * 1024 * 1024), System.getProperty("java.vm.name"), System.getProperty("java.version"));
        }
    }
}
