package com.example.orders;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's quick start, run: {@link OrdersApplication} and {@link OrderController} are the README's
 * Java snippets and {@code quickstart/application.yml} its YAML, word for word ({@code DocumentationTests}
 * holds them to it), and a caller sees what the README says: five calls of a user pass, the sixth within
 * ten seconds gets 429 with {@code Retry-After} and the RateLimit fields, another user is not affected,
 * and the decisions are counted for Prometheus. Only Redis' address, a key prefix of its own and a virtual
 * clock (so that a slow machine cannot let a token return between the calls) differ from the README.
 * It lives in the sample's tests because their class path is the one the README's Install section gives
 * an application: the starter, Spring MVC, the actuator and a Prometheus registry, and nothing else.
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.config.location=classpath:/quickstart/application.yml")
@Import(QuickStartTests.VirtualTime.class)
class QuickStartTests {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        TestRedis redis = TestRedis.shared();
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);
        registry.add("limiter.key-prefix", () -> "quickstart-test-" + UUID.randomUUID());
        // On a loaded machine a healthy Redis may take longer than the 500 ms default to answer.
        registry.add("limiter.redis.timeout", () -> "2s");
    }

    @LocalServerPort
    int port;

    @Test
    void theSixthCallOfAUserWithinTenSecondsIsAnswered429() throws Exception {
        for (int i = 1; i <= 5; i++) {
            HttpResponse<String> allowed = orders("alice");
            assertThat(allowed.statusCode()).as("call %d", i).isEqualTo(200);
            assertThat(allowed.body()).contains("order 1 of alice");
            assertThat(allowed.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=10");
        }
        HttpResponse<String> rejected = orders("alice");
        assertThat(rejected.statusCode()).isEqualTo(429);
        // One token comes back every 2 s (5 per 10 s).
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying(
                (type) -> assertThat(type).startsWith("application/problem+json"));
        assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=5;w=10");
        assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"orders\";r=0;t=2");
        assertThat(rejected.body()).contains("\"title\":\"Too Many Requests\"", "\"status\":429",
                "\"detail\":\"Rate limit 'orders' exceeded; retry after 2 s\"", "\"instance\":\"/api/orders\"",
                "\"limiter\":\"orders\"", "\"limit\":5", "\"violatedLimit\":\"5/10s\"", "\"retryAfter\":2");
    }

    @Test
    void anotherUserHasALimitOfItsOwn() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(orders("bob").statusCode()).isEqualTo(200);
        }
        assertThat(orders("bob").statusCode()).isEqualTo(429);
        assertThat(orders("carol").statusCode()).isEqualTo(200);
    }

    @Test
    void decisionsAreCountedForPrometheus() throws Exception {
        for (int i = 0; i < 6; i++) {
            orders("dave");
        }
        assertThat(get("/actuator/prometheus", null).body()).containsPattern(
                "limiter_decisions_total\\{[^}]*limiter=\"orders\"[^}]*outcome=\"rejected\"[^}]*} [1-9]");
    }

    @Test
    void theActuatorShowsTheLimiter() throws Exception {
        HttpResponse<String> limiters = get("/actuator/limiters", null);
        assertThat(limiters.statusCode()).isEqualTo(200);
        assertThat(limiters.body()).contains("\"orders\"", "token-bucket");
    }

    private HttpResponse<String> orders(String user) throws IOException, InterruptedException {
        return get("/api/orders", user);
    }

    private HttpResponse<String> get(String path, String user) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET();
        if (user != null) {
            request.header("X-User-Id", user);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Limiters take time from a virtual clock, which stands still unless a test moves it. */
    @TestConfiguration(proxyBeanMethods = false)
    static class VirtualTime {

        @Bean
        VirtualClock limiterClock() {
            return new VirtualClock(VirtualClock.EPOCH_ALIGNED_START);
        }
    }
}
