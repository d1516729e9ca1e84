package dev.limiter.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample's other features over real HTTP and a real Redis: several limits, a fallback, shadow
 * mode, the local deny cache, Prometheus metrics (and the Grafana dashboard built on them), and the
 * actuator endpoint, reading a key (and refusing to reset it: writes are off unless the operator profile is on).
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(SampleTestSupport.VirtualTime.class)
class SampleFeaturesTests {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SampleTestSupport.useTestRedis(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    VirtualClock clock;

    @Test
    void searchIsLimitedPerSecondAndPerMinuteAtOnce() throws Exception {
        for (int second = 0; second < 6; second++) {
            for (int i = 0; i < 5; i++) {
                assertThat(search("ivan").statusCode()).as("second %d call %d", second, i).isEqualTo(200);
            }
            HttpResponse<String> sixth = search("ivan");
            assertThat(sixth.statusCode()).isEqualTo(429);
            // The limit reported is the one that admits last: the minute's once 30 calls are in.
            assertThat(sixth.body()).contains("\"violatedLimit\":\"" + ((second < 5) ? "5/1s" : "30/1m") + "\"");
            clock.advance(Duration.ofSeconds(1));
        }
        // 30 calls in six seconds: now the minute's limit rejects, though the second's would admit.
        HttpResponse<String> rejected = search("ivan");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains("\"violatedLimit\":\"30/1m\"");
        assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(
                (policy) -> assertThat(policy).contains(";q=5;w=1").contains(";q=30;w=60"));
    }

    @Test
    void quotesBeyondTheLimitComeFromTheFallback() throws Exception {
        HttpResponse<String> live = get("/api/quotes/ACME", null);
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).contains("\"live\":true");
        assertThat(get("/api/quotes/ACME", null).body()).contains("\"live\":true");
        HttpResponse<String> fallback = get("/api/quotes/ACME", null);
        assertThat(fallback.statusCode()).isEqualTo(200);
        assertThat(fallback.body()).contains("\"live\":false");
        String price = live.body().replaceAll(".*\"price\":([0-9.]+).*", "$1");
        assertThat(fallback.body()).contains("\"price\":" + price);
    }

    @Test
    void checkoutInShadowModeRejectsNobodyButCountsWhoItWouldHave() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(post("/api/checkout", "judy").statusCode()).isEqualTo(201);
        }
        String metrics = get("/actuator/prometheus", null).body();
        assertThat(counter(metrics, "checkout", "allowed", "redis")).isEqualTo(3);
        // The second would-be rejection may come from the local deny cache, which shadow mode uses too.
        assertThat(counter(metrics, "checkout", "shadow_rejected", null)).isEqualTo(2);
    }

    @Test
    void aFloodOnARejectedKeyIsAnsweredByTheLocalDenyCache() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(get("/api/orders", "kate").statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 20; i++) {
            assertThat(get("/api/orders", "kate").statusCode()).isEqualTo(429);
        }
        String metrics = get("/actuator/prometheus", null).body();
        assertThat(counter(metrics, "orders", "rejected", "redis")).isGreaterThanOrEqualTo(1);
        assertThat(counter(metrics, "orders", "rejected", "local-deny-cache")).isGreaterThanOrEqualTo(19);
    }

    @Test
    void theGrafanaDashboardQueriesOnlyMetricsTheSampleExports() throws Exception {
        get("/api/orders", "leo");
        String metrics = get("/actuator/prometheus", null).body();
        String dashboard = Files.readString(Path.of("grafana/limiter-dashboard.json"));
        Set<String> queried = new TreeSet<>();
        Matcher names = Pattern.compile("limiter_[a-z_]+").matcher(dashboard);
        while (names.find()) {
            queried.add(names.group());
        }
        assertThat(queried).contains("limiter_decisions_total", "limiter_redis_duration_seconds_bucket", "limiter_failure_policy_active",
                "limiter_near_limit_total");
        for (String name : queried) {
            assertThat(metrics).as("the dashboard queries %s", name).containsPattern("(?m)^" + name + "\\{");
        }
        assertThat(metrics).containsPattern("limiter_decisions_total\\{[^}]*application=\"limiter-sample\"");
    }

    @Test
    void statusIsLimitedPerClientAddressTakenFromTheTrustedProxy() throws Exception {
        for (int i = 1; i <= 3; i++) {
            assertThat(status("203.0.113.7").statusCode()).as("call %d", i).isEqualTo(200);
        }
        HttpResponse<String> rejected = status("203.0.113.7");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"status\";r=0;t=" + rejected.headers().firstValue("Retry-After").orElseThrow());
        // Another client behind the same proxy has a limit of its own.
        assertThat(status("203.0.113.8").statusCode()).isEqualTo(200);
        // The proxy's own address is a client too, apart from those it forwards.
        assertThat(status(null).statusCode()).isEqualTo(200);
        HttpResponse<String> quota = get("/actuator/limiters/status/203.0.113.7", null);
        assertThat(quota.body()).contains("\"remaining\":0");
    }

    @Test
    void menuIsLimitedPerClientAddressByARuleInTheConfigurationAlone() throws Exception {
        for (int i = 1; i <= 4; i++) {
            HttpResponse<String> allowed = forwardedFor("/api/menu", "203.0.113.21");
            assertThat(allowed.statusCode()).as("call %d", i).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"menu\";r=" + (4 - i) + ";t=");
        }
        HttpResponse<String> rejected = forwardedFor("/api/menu", "203.0.113.21");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
        assertThat(rejected.body()).contains("\"limiter\":\"menu\"").contains("\"violatedLimit\":\"4/1m\"");
        // Another client behind the same proxy has a limit of its own.
        assertThat(forwardedFor("/api/menu", "203.0.113.22").statusCode()).isEqualTo(200);
        String metrics = get("/actuator/prometheus", null).body();
        assertThat(counter(metrics, "menu", "allowed", "redis")).isEqualTo(5);
        assertThat(counter(metrics, "menu", "rejected", null)).isEqualTo(1);
    }

    @Test
    void theLimitersEndpointShowsConfigurationAndTheQuotaOfAKey() throws Exception {
        HttpResponse<String> limiters = get("/actuator/limiters", null);
        assertThat(limiters.statusCode()).isEqualTo(200);
        assertThat(limiters.body()).contains("\"backend\":\"redis\"")
            .contains("\"orders\"", "\"search\"", "\"quotes\"", "\"checkout\"")
            .contains("\"limit\":\"limiter.limiters.orders.limit\"")
            .contains("OrderController.orders(String)");
        get("/api/orders", "mia");
        get("/api/orders", "mia");
        HttpResponse<String> quota = get("/actuator/limiters/orders/mia", null);
        assertThat(quota.statusCode()).isEqualTo(200);
        assertThat(quota.body()).contains("\"remaining\":3").contains("\"source\":\"redis\"");
        // Reading the quota took nothing.
        assertThat(get("/actuator/limiters/orders/mia", null).body()).contains("\"remaining\":3");
        assertThat(get("/actuator/limiters/nonesuch", null).statusCode()).isEqualTo(404);
        // Writes are off in the sample's default setup: nobody on this port resets a key (the operator profile does).
        HttpResponse<String> reset = delete("/actuator/limiters/orders/mia");
        assertThat(reset.statusCode()).isEqualTo(403);
        assertThat(reset.body()).contains("set limiter.endpoint.write-operations.enabled=true");
        assertThat(get("/actuator/limiters/orders/mia", null).body()).contains("\"remaining\":3");
        assertThat(get("/actuator/health", null).body()).containsPattern("\"limiters\":\\{\"details\":\\{[^}]*\\},\"status\":\"UP\"");
    }

    private static double counter(String metrics, String limiter, String outcome, String backend) {
        Matcher line = Pattern.compile("(?m)^limiter_decisions_total\\{([^}]*)\\} ([0-9.E]+)$").matcher(metrics);
        double total = 0;
        while (line.find()) {
            String tags = line.group(1);
            if (tags.contains("limiter=\"" + limiter + "\"") && tags.contains("outcome=\"" + outcome + "\"")
                    && (backend == null || tags.contains("backend=\"" + backend + "\""))) {
                total += Double.parseDouble(line.group(2));
            }
        }
        return total;
    }

    /** GET /api/status as the trusted local proxy forwards it for {@code client}, or from the proxy itself when null. */
    private HttpResponse<String> status(String client) throws IOException, InterruptedException {
        return forwardedFor("/api/status", client);
    }

    /** GET {@code path} as the trusted local proxy forwards it for {@code client}, or from the proxy itself when null. */
    private HttpResponse<String> forwardedFor(String path, String client) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET();
        if (client != null) {
            request.header("X-Forwarded-For", client);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> search(String user) throws IOException, InterruptedException {
        return get("/api/search?q=coffee", user);
    }

    private HttpResponse<String> get(String path, String user) throws IOException, InterruptedException {
        return SampleTestSupport.get(port, path, user);
    }

    private HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).DELETE().build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String user) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .header("X-User-Id", user)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
