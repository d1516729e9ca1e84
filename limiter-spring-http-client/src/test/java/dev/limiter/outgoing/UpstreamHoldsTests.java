package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import dev.limiter.outgoing.internal.UpstreamHolds;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

/** What an upstream's answer asks of its callers. */
class UpstreamHoldsTests {

    private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

    private static HttpHeaders headers(String... fields) {
        HttpHeaders headers = new HttpHeaders();
        for (int i = 0; i < fields.length; i += 2) {
            headers.add(fields[i], fields[i + 1]);
        }
        return headers;
    }

    @Test
    void retryAfterOf429Or503InSecondsOrAsADate() {
        assertThat(UpstreamHolds.of(429, headers("Retry-After", "7"), NOW)).isEqualTo(Duration.ofSeconds(7));
        assertThat(UpstreamHolds.of(503, headers("Retry-After", "Sun, 29 Nov 2026 10:00:30 GMT"), NOW)).isEqualTo(Duration.ofSeconds(30));
        assertThat(UpstreamHolds.of(503, headers("Retry-After", "Sun, 29 Nov 2026 10:00:30 GMT", "Date", "Sun, 29 Nov 2026 10:00:20 GMT"), NOW))
            .isEqualTo(Duration.ofSeconds(10));
        assertThat(UpstreamHolds.of(500, headers("Retry-After", "7"), NOW)).isZero();
        assertThat(UpstreamHolds.of(429, headers("Retry-After", "soon"), NOW)).isZero();
        assertThat(UpstreamHolds.of(429, headers("Retry-After", "999999999"), NOW)).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void rateLimitFieldsSayingTheQuotaIsSpent() {
        assertThat(UpstreamHolds.of(200, headers("RateLimit", "\"default\";r=0;t=30"), NOW)).isEqualTo(Duration.ofSeconds(30));
        assertThat(UpstreamHolds.of(200, headers("RateLimit", "\"default\";r=3;t=30"), NOW)).isZero();
        assertThat(UpstreamHolds.of(200, headers("RateLimit", "\"second\";r=4;t=1, \"day\";r=0;t=3600"), NOW)).isEqualTo(Duration.ofHours(1));
        assertThat(UpstreamHolds.of(200, headers("RateLimit", "limit=10, remaining=0, reset=12"), NOW)).isEqualTo(Duration.ofSeconds(12));
        assertThat(UpstreamHolds.of(200, headers("RateLimit-Remaining", "0", "RateLimit-Reset", "5"), NOW)).isEqualTo(Duration.ofSeconds(5));
        assertThat(UpstreamHolds.of(200, headers("RateLimit-Remaining", "1", "RateLimit-Reset", "5"), NOW)).isZero();
    }
}
