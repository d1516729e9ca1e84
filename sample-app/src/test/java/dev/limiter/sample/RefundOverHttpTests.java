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
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An operator gives permits back to a key over HTTP, {@code POST /actuator/limiters/{name}/{key}} (or
 * {@code .../{name}/{plan}/{key}} for a limiter with plans) with {@code {"permits": n}}: the key's very
 * next requests may take them again, on the sample's real Redis; a reset makes the key whole. What
 * cannot be refunded is answered with what to send instead. The sample runs with its operator profile,
 * as an operator would: the actuator on its own port on 127.0.0.1, write operations on.
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("operator")
@Import(SampleTestSupport.VirtualTime.class)
class RefundOverHttpTests {

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
    void permitsGivenBackCanBeTakenAgainAtOnce() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(SampleTestSupport.get(port, "/api/orders", "refund-rita").statusCode()).isEqualTo(200);
        }
        assertThat(SampleTestSupport.get(port, "/api/orders", "refund-rita").statusCode()).isEqualTo(429);

        HttpResponse<String> refund = post("/actuator/limiters/orders/refund-rita", "{\"permits\": 2}");

        assertThat(refund.statusCode()).isEqualTo(200);
        assertThat(refund.body()).contains("\"limiter\":\"orders\"", "\"key\":\"refund-rita\"", "\"refunded\":true", "\"permits\":2",
                "\"limit\":5", "\"remaining\":2", "\"source\":\"redis\"");
        // The sample remembers rejections (local deny cache): the refund makes it forget this one.
        assertThat(SampleTestSupport.get(port, "/api/orders", "refund-rita").statusCode()).isEqualTo(200);
        assertThat(SampleTestSupport.get(port, "/api/orders", "refund-rita").statusCode()).isEqualTo(200);
        assertThat(SampleTestSupport.get(port, "/api/orders", "refund-rita").statusCode()).isEqualTo(429);

        HttpResponse<String> reset = send("DELETE", "/actuator/limiters/orders/refund-rita", null);
        assertThat(reset.statusCode()).isEqualTo(200);
        assertThat(reset.body()).contains("\"reset\":true", "\"hadState\":true");
        assertThat(SampleTestSupport.get(port, "/api/orders", "refund-rita").statusCode()).as("whole again").isEqualTo(200);
        assertThat(SampleTestSupport.get(port, "/actuator/limiters/orders/refund-rita", null).statusCode())
            .as("the application's port serves no actuator in the operator profile").isEqualTo(404);
    }

    @Test
    void aLimiterWithPlansIsRefundedUnderThePlanThePermitsWereTakenUnder() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(catalog("refund-acme").statusCode()).isEqualTo(200);
        }
        assertThat(catalog("refund-acme").statusCode()).isEqualTo(429);

        HttpResponse<String> withoutPlan = post("/actuator/limiters/catalog/refund-acme", "{\"permits\": 1}");
        assertThat(withoutPlan.statusCode()).isEqualTo(400);
        assertThat(withoutPlan.body()).contains("\"refunded\":false", "has plans",
                "POST /actuator/limiters/catalog/{plan}/refund-acme with {plan} one of [free, pro]");

        HttpResponse<String> free = post("/actuator/limiters/catalog/free/refund-acme", "{\"permits\": 1}");
        assertThat(free.statusCode()).isEqualTo(200);
        assertThat(free.body()).contains("\"plan\":\"free\"", "\"refunded\":true", "\"remaining\":1");
        assertThat(catalog("refund-acme").statusCode()).isEqualTo(200);
        assertThat(catalog("refund-acme").statusCode()).isEqualTo(429);

        assertThat(post("/actuator/limiters/catalog/gold/refund-acme", "{\"permits\": 1}").statusCode()).as("unknown plan").isEqualTo(404);
    }

    @Test
    void missingOrTooFewPermitsAndUnknownLimitersAreRefused() throws Exception {
        HttpResponse<String> missing = post("/actuator/limiters/orders/refund-sam", "{}");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("\"property\":\"permits\"", "No permits given",
                "Send a JSON body such as {\\\"permits\\\": 1}");
        HttpResponse<String> zero = post("/actuator/limiters/orders/refund-sam", "{\"permits\": 0}");
        assertThat(zero.statusCode()).isEqualTo(400);
        assertThat(zero.body()).contains("\"value\":\"0\"", "permits must be at least 1 but was 0");
        assertThat(post("/actuator/limiters/nonesuch/refund-sam", "{\"permits\": 1}").statusCode()).isEqualTo(404);
        assertThat(post("/actuator/limiters/nonesuch/free/refund-sam", "{\"permits\": 1}").statusCode()).isEqualTo(404);
    }

    private HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return send("POST", path, json);
    }

    /** A request to the actuator on its own port, where the operator profile puts it. */
    private HttpResponse<String> send(String method, String path, String json) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
            .header("Content-Type", "application/json")
            .method(method, (json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody())
            .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> catalog(String apiKey) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/catalog"))
            .header("X-Api-Key", apiKey)
            .GET()
            .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
