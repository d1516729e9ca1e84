package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;

/** {@link GatewayFeaturesTests} on the Server MVC gateway, and plans chosen per request by its Limiter filter. */
class ServerMvcGatewayFeaturesTests extends GatewayFeaturesTests {

    @Override
    String routesProperty() {
        return "spring.cloud.gateway.server.webmvc.routes";
    }

    @Override
    String header(String name) {
        return "#request.getHeader('" + name + "')";
    }

    @Override
    Gateway start(List<String> properties) {
        return Gateway.start(WebApplicationType.SERVLET, properties, FrozenTime.class);
    }

    @Override
    List<String> base(String redisUrl) {
        List<String> properties = super.base(redisUrl);
        // Both gateways are on the test class path: the reactive one's Redis configuration has no place here.
        properties.addAll(List.of("spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration,"
                + "org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration",
                "spring.cloud.gateway.server.webflux.enabled=false"));
        return properties;
    }

    @Override
    List<String> sharedProperties(String redisUrl) {
        List<String> properties = super.sharedProperties(redisUrl);
        properties.addAll(List.of("limiter.limiters.tiered.plan=" + header("X-Plan"), "limiter.limiters.tiered.default-plan=free",
                "limiter.limiters.tiered.plans.free.limit=2", "limiter.limiters.tiered.plans.free.window=1h",
                "limiter.limiters.tiered.plans.pro.limit=4", "limiter.limiters.tiered.plans.pro.window=1h"));
        properties.addAll(route(3, "tiers", "tiered", header("X-Api-Key"), null));
        return properties;
    }

    @Test
    void theLimiterFilterPicksThePlanOfEachRequest() {
        int free = 0;
        int pro = 0;
        for (int i = 0; i < 6; i++) {
            free += (gateway.get("/tiers/x", Map.of("X-Api-Key", "a")).statusCode() == 200) ? 1 : 0;
            pro += (gateway.get("/tiers/x", Map.of("X-Api-Key", "b", "X-Plan", "pro")).statusCode() == 200) ? 1 : 0;
        }
        assertThat(free).as("caller a, default plan free").isEqualTo(2);
        assertThat(pro).as("caller b, plan pro").isEqualTo(4);
        HttpResponse<String> proAnswer = gateway.get("/tiers/x", Map.of("X-Api-Key", "c", "X-Plan", "pro"));
        assertThat(proAnswer.headers().firstValue("RateLimit-Policy")).hasValue("\"tiered\";q=4;w=3600");
        // 4 an hour in RedisRateLimiter's terms: a token a second, 900 a permit.
        assertThat(proAnswer.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("3600");
        HttpResponse<String> freeAnswer = gateway.get("/tiers/x", Map.of("X-Api-Key", "d"));
        assertThat(freeAnswer.headers().firstValue("RateLimit-Policy")).hasValue("\"tiered\";q=2;w=3600");
    }
}
