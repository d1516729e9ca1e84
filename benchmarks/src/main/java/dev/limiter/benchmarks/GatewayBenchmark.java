package dev.limiter.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpServer;

import dev.limiter.benchmarks.HttpBenchmark.Load;
import dev.limiter.benchmarks.HttpBenchmark.Round;
import dev.limiter.test.TestRedis;

/**
 * The sample gateway (sample-gateway-app's jar, reactive Spring Cloud Gateway) over HTTP on loopback, one
 * route {@code /api/**} to one backend, with no rate limiter, with the gateway's own {@code RedisRateLimiter},
 * and with Limiter, at limits never reached. Every configuration is the same jar in its own JVM, all started
 * at once against one private redis-server and one backend (a JDK HTTP server in this JVM answering 200
 * "ok"), and measured in alternating rounds with {@link HttpBenchmark}'s load: closed-loop keep-alive
 * connections sending {@code GET /api/orders} with {@code X-User-Id} among the users. Options as
 * HttpBenchmark's: {@code --quick}, {@code --rounds N}, {@code --seconds S}, {@code --warmup S},
 * {@code --connections N}, {@code --users N}, {@code --jar PATH} (by default
 * {@code sample-gateway-app/target/sample-gateway-app.jar}), {@code --only REGEX}, {@code --out FILE}.
 */
public final class GatewayBenchmark {

    private static final String ROUTE = "--spring.cloud.gateway.server.webflux.routes[0].";

    /** Far beyond what the machine can send: every request is allowed, so what is measured is the cost of deciding. */
    private static final String NEVER_REACHED = "1000000000";

    /** Limiter's limiter of the route: a token bucket, like RedisRateLimiter. */
    private static final List<String> LIMITER_BUCKET = List.of("--limiter.limiters.bench.algorithm=token-bucket",
            "--limiter.limiters.bench.limit=" + NEVER_REACHED, "--limiter.limiters.bench.window=1s");

    /** One way the gateway runs: its name in the table, the field of an answer that shows it decided, and its properties. */
    record Configuration(String name, String evidence, List<String> properties) {
    }

    static final List<Configuration> CONFIGURATIONS = List.of(
            new Configuration("no rate limiter", "", List.of()),
            new Configuration("RedisRateLimiter (RequestRateLimiter)", "X-RateLimit-Burst-Capacity",
                    List.of(ROUTE + "filters[0].name=RequestRateLimiter", ROUTE + "filters[0].args.key-resolver=#{@userKeyResolver}",
                            ROUTE + "filters[0].args.redis-rate-limiter.replenishRate=100000000",
                            ROUTE + "filters[0].args.redis-rate-limiter.burstCapacity=100000000")),
            new Configuration("Limiter filter, token bucket", "RateLimit",
                    concat(LIMITER_BUCKET, ROUTE + "filters[0].name=Limiter", ROUTE + "filters[0].args.limiter=bench",
                            ROUTE + "filters[0].args.key=#request.headers['X-User-Id']")),
            new Configuration("Limiter filter, token bucket, batching", "RateLimit",
                    concat(LIMITER_BUCKET, ROUTE + "filters[0].name=Limiter", ROUTE + "filters[0].args.limiter=bench",
                            ROUTE + "filters[0].args.key=#request.headers['X-User-Id']", "--limiter.redis.batching.enabled=true")),
            new Configuration("Limiter as RequestRateLimiter's rate-limiter", "RateLimit",
                    concat(LIMITER_BUCKET, ROUTE + "filters[0].name=RequestRateLimiter",
                            ROUTE + "filters[0].args.key-resolver=#{@userKeyResolver}", ROUTE + "filters[0].args.rate-limiter=#{@limiter}",
                            ROUTE + "filters[0].args.limiter.name=bench")));

    private GatewayBenchmark() {
    }

    private static List<String> concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
    }

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        int seconds = 10;
        int warmup = 20;
        int connections = 32;
        int users = 1000;
        Path jar = Path.of("sample-gateway-app/target/sample-gateway-app.jar");
        Path out = null;
        Pattern only = null;
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
                default -> {
                    System.err.println("Usage: GatewayBenchmark [--quick] [--rounds N] [--seconds S] [--warmup S] [--connections N] "
                            + "[--users N] [--jar sample-gateway-app.jar] [--only REGEX] [--out FILE]");
                    System.exit(2);
                }
            }
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No sample gateway at " + jar.toAbsolutePath()
                    + ": build it with ./mvnw -pl sample-gateway-app -am -DskipTests package, or give --jar");
        }
        String loadBefore = HttpBenchmark.loadAverage();
        long started = System.nanoTime();
        Map<Configuration, List<Round>> results = new LinkedHashMap<>();
        Map<Configuration, String> evidence = new LinkedHashMap<>();
        List<Gateway> gateways = new ArrayList<>();
        try (TestRedis redis = TestRedis.start(); Backend backend = Backend.start()) {
            for (Configuration configuration : CONFIGURATIONS) {
                if (only == null || only.matcher(configuration.name()).find() || configuration == CONFIGURATIONS.get(0)) {
                    gateways.add(Gateway.start(jar, configuration, redis, backend));
                }
            }
            for (Gateway gateway : gateways) {
                evidence.put(gateway.configuration, gateway.awaitReady(Duration.ofSeconds(180)));
            }
            for (Gateway gateway : gateways) {
                Load.run(gateway.port, connections, users, Duration.ofSeconds(warmup));
                System.err.printf(Locale.ROOT, "warmed up: %s%n", gateway.configuration.name());
            }
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < gateways.size(); i++) {
                    // Rotated each round, so no configuration always runs first or after the same one.
                    Gateway gateway = gateways.get((i + round) % gateways.size());
                    Round measured = Load.run(gateway.port, connections, users, Duration.ofSeconds(seconds));
                    results.computeIfAbsent(gateway.configuration, (c) -> new ArrayList<>()).add(measured);
                    System.err.printf(Locale.ROOT, "round %d %-48s %,10.0f requests/s p50 %6.0f us p99 %6.0f us, non-200 %d%n", round + 1,
                            gateway.configuration.name(), measured.perSecond(), measured.p50Micros(), measured.p99Micros(), measured.failed());
                }
            }
            String markdown = report(results, evidence, connections, users, seconds, rounds, warmup, loadBefore,
                    Duration.ofNanos(System.nanoTime() - started), redis, backend);
            System.out.println(markdown);
            if (out != null) {
                Files.writeString(out, markdown, StandardCharsets.UTF_8);
            }
        }
        finally {
            for (Gateway gateway : gateways) {
                gateway.process.destroy();
            }
            for (Gateway gateway : gateways) {
                gateway.process.waitFor(20, TimeUnit.SECONDS);
                gateway.process.destroyForcibly();
            }
        }
        System.exit(0);
    }

    private static String report(Map<Configuration, List<Round>> results, Map<Configuration, String> evidence, int connections, int users,
            int seconds, int rounds, int warmup, String loadBefore, Duration took, TestRedis redis, Backend backend) {
        StringBuilder md = new StringBuilder();
        List<Round> none = results.get(CONFIGURATIONS.get(0));
        double unlimited = HttpBenchmark.median(none, Round::perSecond);
        double unlimitedP99 = HttpBenchmark.median(none, Round::p99Micros);
        md.append("| sample gateway, GET /api/orders, ").append(connections).append(" connections | requests/s (median of ").append(rounds)
            .append(" rounds) | against no rate limiter | p50 | p99 | p99 against no rate limiter | an answer's field |\n")
            .append("|---|---|---|---|---|---|---|\n");
        for (Map.Entry<Configuration, List<Round>> entry : results.entrySet()) {
            List<Round> measured = entry.getValue();
            double perSecond = HttpBenchmark.median(measured, Round::perSecond);
            double p99 = HttpBenchmark.median(measured, Round::p99Micros);
            long failed = measured.stream().mapToLong(Round::failed).sum();
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %+.1f%% | %.0f µs | %.0f µs | %+.0f µs | %s%s |%n", entry.getKey().name(),
                    perSecond, 100 * (perSecond / unlimited - 1), HttpBenchmark.median(measured, Round::p50Micros), p99, p99 - unlimitedP99,
                    evidence.get(entry.getKey()), (failed > 0) ? "; " + failed + " answers not 200" : ""));
        }
        md.append(String.format(Locale.ROOT, "%nThe same gateway jar in one JVM per configuration (-Xmx512m), all running at once against one "
                + "private redis-server %s and one backend (JDK HTTP server in the measuring JVM, %,d requests served); %d s warm-up each, "
                + "then %d rounds of %d s per configuration in rotated order; %d closed-loop connections in the measuring JVM, %d users "
                + "(X-User-Id), limits never reached. Machine: %s. Load average before %s, after %s; %d s in all.%n",
                HttpBenchmark.redisVersion(redis), backend.served(), warmup, rounds, seconds, connections, users,
                HttpBenchmark.Machine.describe(), loadBefore, HttpBenchmark.loadAverage(), took.toSeconds()));
        return md.toString();
    }

    /** The backend every configuration routes to: answers each request 200 "ok" at once. */
    static final class Backend implements AutoCloseable {

        private final HttpServer server;

        private final ExecutorService executor = Executors.newFixedThreadPool(8);

        private final java.util.concurrent.atomic.LongAdder served = new java.util.concurrent.atomic.LongAdder();

        private Backend(HttpServer server) {
            this.server = server;
        }

        static Backend start() throws IOException {
            // Without it the JDK's server leaves Nagle's algorithm on, and its answers wait for delayed ACKs (tens of ms).
            System.setProperty("sun.net.httpserver.nodelay", "true");
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
            Backend backend = new Backend(server);
            byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
            server.createContext("/", (exchange) -> {
                backend.served.increment();
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream output = exchange.getResponseBody()) {
                    output.write(body);
                }
            });
            server.setExecutor(backend.executor);
            server.start();
            return backend;
        }

        String uri() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        long served() {
            return served.sum();
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }

    /** One sample gateway running in a JVM of its own. */
    static final class Gateway {

        final Configuration configuration;

        final Process process;

        final int port;

        private Gateway(Configuration configuration, Process process, int port) {
            this.configuration = configuration;
            this.process = process;
            this.port = port;
        }

        static Gateway start(Path jar, Configuration configuration, TestRedis redis, Backend backend) throws IOException {
            int port = HttpBenchmark.freePort();
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xms512m",
                    "-Xmx512m", "-jar", jar.toString(), "--server.port=" + port, "--spring.data.redis.host=" + redis.host(),
                    "--spring.data.redis.port=" + redis.port(), "--limiter.key-prefix=bench-" + port, "--logging.level.root=WARN",
                    "--sample.backend-uri=" + backend.uri(),
                    // One route in place of the sample's: arguments replace the list of application.yml.
                    ROUTE + "id=bench", ROUTE + "uri=" + backend.uri(), ROUTE + "predicates[0]=Path=/api/**"));
            command.addAll(configuration.properties());
            return new Gateway(configuration, HttpBenchmark.launch(command, "gateway-benchmark-" + port), port);
        }

        /** Waits for a 200 through the route; answers the field that shows who decided, as the first answer carried it. */
        String awaitReady(Duration timeout) throws Exception {
            HttpResponse<String> response = HttpBenchmark.awaitOk(process, configuration.name(), port, timeout);
            if (configuration.evidence().isEmpty()) {
                boolean limited = response.headers().firstValue("RateLimit").isPresent()
                        || response.headers().firstValue("X-RateLimit-Remaining").isPresent();
                if (limited) {
                    throw new IllegalStateException(configuration.name() + " answered with rate limit fields");
                }
                return "none";
            }
            String value = response.headers().firstValue(configuration.evidence())
                .orElseThrow(() -> new IllegalStateException(configuration.name() + " answered without " + configuration.evidence()
                        + ": its rate limiter did not decide"));
            return configuration.evidence() + ": " + value;
        }
    }
}
