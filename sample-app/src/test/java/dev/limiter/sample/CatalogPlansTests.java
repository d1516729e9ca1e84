package dev.limiter.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample's catalogue over real HTTP and a real Redis, limited per API key by the plan in X-Plan
 * (free without one), as application.yml configures it: each plan its own limits, counted apart; an
 * unknown plan a 500; partners and the monitoring key never limited.
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(SampleTestSupport.VirtualTime.class)
class CatalogPlansTests {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static String prefix;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        prefix = SampleTestSupport.useTestRedis(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    VirtualClock clock;

    @Autowired
    StringRedisTemplate redis;

    @Test
    void eachPlanHasItsOwnLimitsAndCountsApart() throws Exception {
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> allowed = catalog("acme", null);
            assertThat(allowed.statusCode()).as("call %d", i).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit-Policy")).hasValue("\"catalog\";q=3;w=60");
        }
        HttpResponse<String> free = catalog("acme", "free");
        assertThat(free.statusCode()).isEqualTo(429);
        assertThat(free.body()).contains("\"limiter\":\"catalog\"", "\"plan\":\"free\"");
        // Acme upgrades: pro counts afresh, 5 a second.
        for (int i = 1; i <= 5; i++) {
            assertThat(catalog("acme", "pro").statusCode()).as("pro call %d", i).isEqualTo(200);
        }
        HttpResponse<String> pro = catalog("acme", "pro");
        assertThat(pro.statusCode()).isEqualTo(429);
        assertThat(pro.body()).contains("\"plan\":\"pro\"", "\"violatedLimit\":\"5/1s\"");
        assertThat(pro.headers().firstValue("RateLimit-Policy")).hasValue("\"catalog-1s\";q=5;w=1, \"catalog-1m\";q=20;w=60");
        clock.advance(Duration.ofSeconds(1));
        assertThat(catalog("acme", "pro").statusCode()).isEqualTo(200);
        assertThat(catalog("acme", null).statusCode()).as("free is still spent").isEqualTo(429);
        HttpResponse<String> quota = get("/actuator/limiters/catalog/pro/acme");
        assertThat(quota.statusCode()).isEqualTo(200);
        assertThat(quota.body()).contains("\"plan\":\"pro\"", "\"remaining\":4");
        // Without a plan, the key's quota in every plan: which plan a call falls under is decided per call.
        HttpResponse<String> everyPlan = get("/actuator/limiters/catalog/acme");
        assertThat(everyPlan.statusCode()).isEqualTo(200);
        assertThat(everyPlan.body()).startsWith("{\"limiter\":\"catalog\",\"key\":\"acme\",\"plans\":{\"free\":{\"limit\":3,\"remaining\":0,")
            .contains("\"pro\":{\"limit\":5,\"remaining\":4,", "\"unlimitedPlans\":[\"partner\"]")
            .doesNotContain(":null");
    }

    @Test
    void anUnknownPlanIsAServerError() throws Exception {
        HttpResponse<String> unknown = catalog("globex", "gold");
        assertThat(unknown.statusCode()).isEqualTo(500);
        assertThat(unknown.body()).doesNotContain("gold");
        assertThat(catalog("globex", null).statusCode()).as("nothing was charged").isEqualTo(200);
    }

    @Test
    void partnersAndTheMonitoringKeyAreNeverLimitedAndLeaveNothingInRedis() throws Exception {
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> partner = catalog("initech", "partner");
            assertThat(partner.statusCode()).isEqualTo(200);
            assertThat(partner.headers().firstValue("RateLimit")).isEmpty();
            assertThat(catalog("monitoring", null).statusCode()).isEqualTo(200);
        }
        assertThat(keysUnder(prefix + ":{catalog/partner:")).isEmpty();
        assertThat(keysUnder(prefix + ":{catalog/free:monitoring}")).isEmpty();
        assertThat(get("/actuator/prometheus").body())
            .containsPattern("limiter_decisions_total\\{[^}]*backend=\"unlimited\"[^}]*limiter=\"catalog\"[^}]*outcome=\"allowed\"[^}]*\\} 60.0");
    }

    @Test
    void theLimitersEndpointShowsEachPlan() throws Exception {
        HttpResponse<String> catalog = get("/actuator/limiters/catalog");
        assertThat(catalog.statusCode()).isEqualTo(200);
        assertThat(catalog.body()).contains("\"plans\":{", "\"free\":{\"limits\":[{\"limit\":3,\"window\":\"PT1M\"",
                "\"partner\":{\"limits\":[],\"unlimited\":true}", "\"defaultPlan\":\"free\"", "\"unlimitedKeys\":1",
                "\"plan\":\"limiter.limiters.catalog.plan\"");
    }

    private List<String> keysUnder(String keyPrefix) {
        List<String> keys = new ArrayList<>();
        try (Cursor<String> cursor = redis.scan(ScanOptions.scanOptions().match(keyPrefix + "*").count(1000).build())) {
            cursor.forEachRemaining(keys::add);
        }
        return keys;
    }

    private HttpResponse<String> catalog(String apiKey, String plan) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/catalog"))
            .header("X-Api-Key", apiKey)
            .GET();
        if (plan != null) {
            request.header("X-Plan", plan);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return SampleTestSupport.get(port, path, null);
    }
}
