package dev.limiter.sample.webflux;

import java.time.Duration;
import java.util.UUID;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The WebFlux sample over real HTTP (Netty) and a real Redis: the Mono endpoint admits five calls per
 * user within ten seconds, the Flux endpoint two series a minute, each announcing the quota in the
 * RateLimit header fields; beyond that the answer is 429 with Retry-After and a problem detail.
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(QuotesRateLimitTests.VirtualTime.class)
class QuotesRateLimitTests {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        TestRedis redis = TestRedis.shared();
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);
        registry.add("limiter.key-prefix", () -> "webflux-sample-test-" + UUID.randomUUID());
    }

    @LocalServerPort
    int port;

    WebTestClient client;

    @BeforeEach
    void client() {
        // The first request of a cold application may take seconds on a loaded machine; 5 s (the default) is not a limit of ours.
        client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).responseTimeout(Duration.ofSeconds(60)).build();
    }

    @Test
    void fiveQuotesWithTheirQuotaThenTooManyRequests() {
        for (int remaining = 4; remaining >= 0; remaining--) {
            // A token comes back every 2 s (5 per 10 s): t is when the bucket is full again.
            client.get().uri("/api/quotes/ACME").header("X-User-Id", "alice").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit-Policy", "\"quotes\";q=5;w=10")
                .expectHeader().valueEquals("RateLimit", "\"quotes\";r=" + remaining + ";t=" + 2 * (5 - remaining))
                .expectBody().jsonPath("$.symbol").isEqualTo("ACME");
        }
        client.get().uri("/api/quotes/ACME").header("X-User-Id", "alice").exchange()
            .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
            .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "2")
            .expectHeader().valueEquals("RateLimit", "\"quotes\";r=0;t=2")
            .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
            .expectBody()
            .jsonPath("$.status").isEqualTo(429)
            .jsonPath("$.limiter").isEqualTo("quotes")
            .jsonPath("$.instance").isEqualTo("/api/quotes/ACME");
        // Another user has a quota of their own.
        client.get().uri("/api/quotes/ACME").header("X-User-Id", "bob").exchange()
            .expectStatus().isOk()
            .expectHeader().valueEquals("RateLimit", "\"quotes\";r=4;t=2");
    }

    @Test
    void twoTickSeriesAMinuteThenTooManyRequests() {
        for (int remaining = 1; remaining >= 0; remaining--) {
            // A fixed window of a minute, 30 s from its end.
            client.get().uri("/api/quotes/ACME/ticks").header("X-User-Id", "carol").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit-Policy", "\"ticks\";q=2;w=60")
                .expectHeader().valueEquals("RateLimit", "\"ticks\";r=" + remaining + ";t=30")
                .expectBody().jsonPath("$.length()").isEqualTo(3).jsonPath("$[2].tick").isEqualTo(3);
        }
        client.get().uri("/api/quotes/ACME/ticks").header("X-User-Id", "carol").exchange()
            .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
            .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "30")
            .expectBody().jsonPath("$.limiter").isEqualTo("ticks").jsonPath("$.violatedLimit").isEqualTo("2/1m");
    }

    @Test
    void missingUserHeaderIsABadRequest() {
        client.get().uri("/api/quotes/ACME").exchange().expectStatus().isBadRequest();
    }

    /** Makes the limiters take time from a {@link VirtualClock}. */
    @TestConfiguration(proxyBeanMethods = false)
    static class VirtualTime {

        @Bean
        VirtualClock limiterClock() {
            return new VirtualClock(1_800_001_230_000_000L);
        }
    }
}
