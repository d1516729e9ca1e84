package dev.limiter.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample, processed ahead of time at build (spring-boot-maven-plugin process-aot), runs
 * with {@code -Dspring.aot.enabled=true} as it would on its way to a native image: its limiters,
 * their Lua scripts, the 429 answer, a fallback method and a rule of limiter.rules all work from
 * the generated bean definitions. Runs after {@code package}, against the tests' own Redis.
 */
@RedisTest
@Timeout(120)
class AheadOfTimeSampleIT {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void theAheadOfTimeProcessedJarLimitsAsTheSampleDoes() throws Exception {
        TestRedis redis = TestRedis.shared();
        int port = freePort();
        Path log = Files.createTempFile("sample-aot", ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-Dspring.aot.enabled=true", "-jar", jar().toString(),
                "--server.port=" + port, "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                "--limiter.key-prefix=sample-aot-" + UUID.randomUUID()));
        Process app = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitUp(app, port, log);
            // The orders limiter is a bucket of 5 that takes back a permit every 2 s on Redis' clock: no virtual clock
            // reaches this jar. The first 5 calls pass; of the next 2, no more than one per 2 s measured around the
            // calls, so both are 429s unless a loaded machine took that long (the first calls of a fresh JVM are slow).
            long start = System.nanoTime();
            List<HttpResponse<String>> orders = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                orders.add(get(port, "/api/orders", "alice"));
            }
            long refilled = Duration.ofNanos(System.nanoTime() - start).toSeconds() / 2;
            List<Integer> statuses = orders.stream().map(HttpResponse::statusCode).toList();
            assertThat(statuses.subList(0, 5)).as("the first 5 calls").containsOnly(200);
            assertThat(statuses.subList(5, 7)).as("calls beyond the bucket").allMatch((status) -> status == 200 || status == 429)
                .filteredOn((status) -> status == 200)
                .as("calls beyond the bucket admitted, with %d permit(s) taken back in the time measured", refilled)
                .hasSizeLessThanOrEqualTo((int) refilled);
            assertThat(orders).filteredOn((answer) -> answer.statusCode() == 429)
                .allSatisfy((rejected) -> assertThat(rejected.headers().firstValue("Retry-After")).isPresent());
            // The quotes limiter (2 per 10 s) answers beyond its limit from its fallback method.
            get(port, "/api/quotes/ACME", null);
            get(port, "/api/quotes/ACME", null);
            assertThat(get(port, "/api/quotes/ACME", null).body()).contains("\"live\":false");
            // GET /api/menu is limited only by a rule of application.yml (4 a minute per client): the
            // rule filter is registered from the generated definitions too. Ten calls cross at most
            // one minute's boundary, so at most eight pass.
            List<HttpResponse<String>> menus = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                menus.add(get(port, "/api/menu", null));
            }
            assertThat(menus).filteredOn((menu) -> menu.statusCode() == 429).isNotEmpty()
                .allSatisfy((menu) -> assertThat(menu.body()).contains("\"limiter\":\"menu\""));
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(output).contains("Starting AOT-processed");
            assertThat(output).doesNotContain(" ERROR ");
        }
        finally {
            app.destroy();
            if (!app.waitFor(10, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }

    private static Path jar() {
        Path jar = Path.of("target", "sample-app.jar");
        assertThat(jar).as("the packaged sample (this test runs after package)").exists();
        return jar;
    }

    private void awaitUp(Process app, int port, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            assertThat(app.isAlive()).as("the sample stays up; its output:%n%s", Files.readString(log, StandardCharsets.UTF_8)).isTrue();
            try {
                if (get(port, "/actuator/health", null).statusCode() == 200) {
                    return;
                }
            }
            catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the sample did not start within 90 s; its output:\n" + Files.readString(log, StandardCharsets.UTF_8));
    }

    private HttpResponse<String> get(int port, String path, String user) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(10)).GET();
        if (user != null) {
            request.header("X-User-Id", user);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
