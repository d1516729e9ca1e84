package dev.limiter.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.limiter.test.RedisTest;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An operator retunes the sample's limiters over HTTP, {@code POST /actuator/limiters/{name}}, while it
 * runs: the very next requests are limited by the new values. {@code status} keeps each client's used
 * permits ({@code on-retune: keep}), {@code orders} starts every key fresh (the default). A bad value
 * is refused with the property and the problem, and the limits in force stay. {@code search} gets
 * several limits and {@code quotes} (gcra) a lease, as text: a web endpoint's body holds nothing else. The sample runs
 * with its operator profile (actuator on its own port on 127.0.0.1, write operations on). The context is thrown
 * away afterwards, so no other test sees the retuned limits.
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("operator")
@Import(SampleTestSupport.VirtualTime.class)
@DirtiesContext
class RetuneOverHttpTests {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SampleTestSupport.useTestRedis(registry);
    }

    @LocalServerPort
    int port;

    /** The actuator's own port, on 127.0.0.1, where the operator profile puts it. */
    @LocalManagementPort
    int managementPort;

    @Test
    void aRaisedLimitAppliesAtOnceKeepingOrResettingWhatKeysUsed() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(status("198.51.100.1").statusCode()).isEqualTo(200);
        }
        assertThat(status("198.51.100.1").statusCode()).isEqualTo(429);
        for (int i = 0; i < 5; i++) {
            assertThat(SampleTestSupport.get(port, "/api/orders", "nina").statusCode()).isEqualTo(200);
        }
        assertThat(SampleTestSupport.get(port, "/api/orders", "nina").statusCode()).isEqualTo(429);

        HttpResponse<String> status = post("/actuator/limiters/status", "{\"limit\": 5}");
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"changed\":true", "\"stateKept\":true", "\"state\":\"keys keep their state (on-retune: keep)\"",
                "\"limits\":[{\"limit\":5,\"window\":\"PT1M\"");
        HttpResponse<String> orders = post("/actuator/limiters/orders", "{\"limit\": 8, \"burst\": 8}");
        assertThat(orders.statusCode()).isEqualTo(200);
        assertThat(orders.body()).contains("\"stateKept\":false", "\"state\":\"keys start fresh (on-retune: reset)\"");

        // 3 of 5 used: two more.
        assertThat(status("198.51.100.1").statusCode()).isEqualTo(200);
        assertThat(status("198.51.100.1").statusCode()).isEqualTo(200);
        assertThat(status("198.51.100.1").statusCode()).isEqualTo(429);
        HttpResponse<String> first = SampleTestSupport.get(port, "/api/orders", "nina");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=8;w=10");
        for (int i = 1; i < 8; i++) {
            assertThat(SampleTestSupport.get(port, "/api/orders", "nina").statusCode()).isEqualTo(200);
        }
        assertThat(SampleTestSupport.get(port, "/api/orders", "nina").statusCode()).isEqualTo(429);
    }

    @Test
    void aBadValueIsRefusedNamingThePropertyAndTheLimitsInForceStay() throws Exception {
        HttpResponse<String> refused = post("/actuator/limiters/quotes", "{\"window\": \"0s\"}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("\"property\":\"limiter.limiters.quotes.window\"", "\"value\":\"PT0S\"",
                "\"problem\":\"The window must be positive");
        assertThat(SampleTestSupport.get(managementPort, "/actuator/limiters/quotes", null).body()).contains("\"window\":\"PT10S\"");
        assertThat(post("/actuator/limiters/nonesuch", "{\"limit\": 5}").statusCode()).isEqualTo(404);
    }

    @Test
    void severalLimitsAndALeaseAreTextOverHttpCheckedAsAtStartup() throws Exception {
        HttpResponse<String> several = post("/actuator/limiters/search", "{\"limits\": \"10/1s, 100/1m\"}");
        assertThat(several.statusCode()).as(several.body()).isEqualTo(200);
        assertThat(several.body()).contains("\"limits\":[{\"limit\":10,\"window\":\"PT1S\",\"burst\":null,\"zone\":null,\"anchorDay\":null},{\"limit\":100,\"window\":\"PT1M\"");
        HttpResponse<String> notLimits = post("/actuator/limiters/search", "{\"limits\": \"10 per second\"}");
        assertThat(notLimits.statusCode()).isEqualTo(400);
        assertThat(notLimits.body()).contains("\"property\":\"limiter.limiters.search.limits\"", "\\\"10/1s, 1000/1h\\\"");

        HttpResponse<String> leasing = post("/actuator/limiters/quotes", "{\"leasePermits\": 2, \"leaseTtl\": \"100ms\"}");
        assertThat(leasing.statusCode()).as(leasing.body()).isEqualTo(200);
        assertThat(leasing.body()).contains("\"changed\":true", "\"lease\":{\"permits\":2,\"ttl\":\"PT0.1S\"}");
        HttpResponse<String> refused = post("/actuator/limiters/quotes", "{\"leasePermits\": 0}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("\"property\":\"limiter.limiters.quotes.lease.permits\"");
        assertThat(SampleTestSupport.get(managementPort, "/actuator/limiters/quotes", null).body()).as("the lease in force stays")
            .contains("\"lease\":{\"permits\":2,\"ttl\":\"PT0.1S\"}");
        HttpResponse<String> off = post("/actuator/limiters/quotes", "{\"leasePermits\": \"\", \"leaseTtl\": \"\"}");
        assertThat(off.statusCode()).as(off.body()).isEqualTo(200);
        assertThat(SampleTestSupport.get(managementPort, "/actuator/limiters/quotes", null).body()).contains("\"lease\":null");
    }

    private HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** GET /api/status as the trusted local proxy forwards it for {@code client}. */
    private HttpResponse<String> status(String client) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/status"))
            .header("X-Forwarded-For", client)
            .GET()
            .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
