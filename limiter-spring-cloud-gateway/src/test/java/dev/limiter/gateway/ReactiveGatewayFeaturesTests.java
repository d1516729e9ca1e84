package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;

/**
 * {@link GatewayFeaturesTests} on the reactive gateway, and what only it has: a cost on the Limiter
 * filter, and RequestRateLimiter routes deciding through Limiter in shadow mode and with max-wait.
 */
class ReactiveGatewayFeaturesTests extends GatewayFeaturesTests {

    @Override
    String routesProperty() {
        return "spring.cloud.gateway.server.webflux.routes";
    }

    @Override
    String header(String name) {
        return "#request.headers['" + name + "']";
    }

    @Override
    Gateway start(List<String> properties) {
        return Gateway.start(WebApplicationType.REACTIVE, properties, FrozenTime.class, ReactiveGatewayTests.KeyResolvers.class);
    }

    @Override
    List<String> sharedProperties(String redisUrl) {
        List<String> properties = super.sharedProperties(redisUrl);
        properties.addAll(List.of("limiter.limiters.costly.algorithm=fixed-window", "limiter.limiters.costly.limit=5",
                "limiter.limiters.costly.window=1h",
                "limiter.limiters.shadowed-legacy.algorithm=token-bucket", "limiter.limiters.shadowed-legacy.limit=2",
                "limiter.limiters.shadowed-legacy.window=1h", "limiter.limiters.shadowed-legacy.shadow=true",
                // 4 a second, 240 at most (a minute's worth); a request may wait up to 300 ms for its permits.
                "limiter.limiters.waiting.algorithm=token-bucket", "limiter.limiters.waiting.limit=4", "limiter.limiters.waiting.window=1s",
                "limiter.limiters.waiting.burst=240", "limiter.limiters.waiting.max-wait=300ms"));
        properties.addAll(route(3, "costly", "costly", header("X-Api-Key"), "2"));
        properties.addAll(requestRateLimiter(4, "shadow-legacy", "shadowed-legacy", 1));
        properties.addAll(requestRateLimiter(5, "waiting", "waiting", 1));
        properties.addAll(requestRateLimiter(6, "waiting-double", "waiting", 2));
        properties.addAll(requestRateLimiter(7, "waiting-burst", "waiting", 240));
        return properties;
    }

    /** Route {@code index}: {@code /<path>/**} to the backend with RequestRateLimiter deciding through limiter {@code limiter}. */
    private List<String> requestRateLimiter(int index, String path, String limiter, int cost) {
        String route = routesProperty() + "[" + index + "]";
        return List.of(route + ".id=" + path, route + ".uri=" + backend.url(), route + ".predicates[0]=Path=/" + path + "/**",
                route + ".filters[0].name=RequestRateLimiter", route + ".filters[0].args.rate-limiter=#{@limiter}",
                route + ".filters[0].args.key-resolver=#{@apiKeyResolver}", route + ".filters[0].args.limiter.name=" + limiter,
                route + ".filters[0].args.limiter.cost=" + cost);
    }

    @Test
    void eachRequestOfARouteWithACostTakesThatManyPermits() {
        Map<String, String> caller = Map.of("X-Api-Key", "a");
        HttpResponse<String> first = gateway.get("/costly/x", caller);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying((value) -> assertThat(value).startsWith("\"costly\";r=3;"));
        // In RedisRateLimiter's terms for 5 an hour (a token a second, 720 a permit): 3 permits left, 2 asked.
        assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("2160");
        assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("1440");
        assertThat(gateway.get("/costly/x", caller).statusCode()).isEqualTo(200);
        // 1 of 5 left, and a request takes 2.
        HttpResponse<String> rejected = gateway.get("/costly/x", caller);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("720");
        assertThat(decisions("costly", "allowed", "redis")).isEqualTo(2);
        assertThat(decisions("costly", "rejected", "redis")).isEqualTo(1);
    }

    @Test
    void aShadowLimiterOfRequestRateLimiterLetsEveryRequestThrough() {
        int served = backend.served();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = gateway.get("/shadow-legacy/x", Map.of("X-Api-Key", "a"));
            assertThat(response.statusCode()).as("status of request " + i).isEqualTo(200);
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        }
        assertThat(backend.served() - served).as("requests that reached the backend").isEqualTo(5);
        assertThat(decisions("shadowed-legacy", "allowed", "redis")).isEqualTo(2);
        assertThat(decisions("shadowed-legacy", "shadow_rejected", "redis")).isEqualTo(3);
    }

    /**
     * Limiter's clock stands still, so the bucket refills only by the test's hand: a request that fits
     * within max-wait waits its turn (250 ms, in real time, as the gateway delays it) and passes; one
     * that would wait longer is rejected at once and takes nothing. Redis expires the bucket's key in
     * real time once the bucket would be full again: one request takes the whole burst, so that is a
     * minute away. (A burst of 8 taken a permit a request left the key 250 ms after the first: a pause
     * that long, easily made by a loaded machine, gave back a full bucket.)
     */
    @Test
    void requestRateLimiterDelaysARequestWithinMaxWaitInsteadOfRejectingIt() {
        Map<String, String> caller = Map.of("X-Api-Key", "a");
        HttpResponse<String> burst = gateway.get("/waiting-burst/x", caller);
        assertThat(burst.statusCode()).as("the whole burst at once").isEqualTo(200);
        assertThat(burst.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        // Two permits: 500 ms at 4 a second, beyond max-wait.
        HttpResponse<String> tooLong = gateway.get("/waiting-double/x", caller);
        assertThat(tooLong.statusCode()).isEqualTo(429);
        assertThat(tooLong.headers().firstValue("Retry-After")).hasValue("1");
        // One permit: 250 ms, within max-wait.
        long waitStart = System.nanoTime();
        HttpResponse<String> waited = gateway.get("/waiting/x", caller);
        long waitedMillis = (System.nanoTime() - waitStart) / 1_000_000;
        assertThat(waited.statusCode()).isEqualTo(200);
        assertThat(waitedMillis).as("milliseconds the admitted request took").isGreaterThanOrEqualTo(250);
        assertThat(waited.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(decisions("waiting", "allowed", "redis")).isEqualTo(2);
        assertThat(decisions("waiting", "rejected", "redis")).isEqualTo(1);
    }
}
