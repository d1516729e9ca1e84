package dev.limiter.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample over real HTTP and a real Redis: the orders API admits five calls per user within ten
 * seconds and answers the sixth with 429, while other users go on.
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(SampleTestSupport.VirtualTime.class)
class OrdersRateLimitTests {

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
    void sixthCallWithinTenSecondsIsRejectedWithRetryAfter() throws Exception {
        for (int i = 1; i <= 5; i++) {
            assertThat(orders("alice").statusCode()).as("call %d", i).isEqualTo(200);
        }
        HttpResponse<String> rejected = orders("alice");
        assertThat(rejected.statusCode()).isEqualTo(429);
        // One token comes back every 2 s (5 per 10 s).
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(rejected.headers().firstValue("Content-Type"))
            .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(rejected.body()).contains("\"status\":429").contains("\"limiter\":\"orders\"");
    }

    @Test
    void anotherUserIsUnaffected() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(orders("bob").statusCode()).isEqualTo(200);
        }
        assertThat(orders("bob").statusCode()).isEqualTo(429);
        HttpResponse<String> carol = orders("carol");
        assertThat(carol.statusCode()).isEqualTo(200);
        assertThat(carol.body()).contains("\"userId\":\"carol\"");
    }

    @Test
    void aTokenReturnsAfterTheRetryAfter() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(orders("dave").statusCode()).isEqualTo(200);
        }
        assertThat(orders("dave").statusCode()).isEqualTo(429);
        clock.advance(Duration.ofMillis(1_999));
        assertThat(orders("dave").statusCode()).isEqualTo(429);
        clock.advance(Duration.ofMillis(1));
        assertThat(orders("dave").statusCode()).isEqualTo(200);
        assertThat(orders("dave").statusCode()).isEqualTo(429);
    }

    @Test
    void theLimitIsKeptInRedisWithATimeToLive() throws Exception {
        assertThat(orders("erin").statusCode()).isEqualTo(200);
        // One key, in the user's hash tag; it ends with a digest of the limiter's configuration.
        Set<String> keys = redis.keys(prefix + ":{orders:erin}:tb2:*");
        assertThat(keys).hasSize(1);
        // After one call the bucket is full again in 2 s, so that is all the key may live.
        Long ttl = redis.getExpire(keys.iterator().next(), TimeUnit.MILLISECONDS);
        assertThat(ttl).isBetween(1L, 2_000L);
    }

    @Test
    void missingUserHeaderIsABadRequest() throws Exception {
        assertThat(SampleTestSupport.get(port, "/api/orders", null).statusCode()).isEqualTo(400);
    }

    @Test
    void healthIsExposedAndIncludesRedis() throws Exception {
        HttpResponse<String> health = SampleTestSupport.get(port, "/actuator/health", null);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"redis\"");
    }

    private HttpResponse<String> orders(String user) throws IOException, InterruptedException {
        return SampleTestSupport.get(port, "/api/orders", user);
    }
}
