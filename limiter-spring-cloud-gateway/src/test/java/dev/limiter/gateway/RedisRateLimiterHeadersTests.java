package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import reactor.core.publisher.Mono;

/**
 * What a gateway moving from RedisRateLimiter keeps, on a real Redis: the X-RateLimit-* fields as
 * RedisRateLimiter sends them for the same bucket (compared with the gateway's own RedisRateLimiter on the
 * same gateway), named and turned off by RedisRateLimiter's settings or Limiter's; RequestRateLimiter in
 * default-filters and in Java routes; a missing key answered 403 as RequestRateLimiter does.
 */
@RedisTest
class RedisRateLimiterHeadersTests {

    private static final String WEBFLUX = "spring.cloud.gateway.server.webflux.";

    private static final String REDIS_RATE_LIMITER = WEBFLUX + "redis-rate-limiter.";

    private static final List<String> DEFAULT_NAMES = List.of("X-RateLimit-Remaining", "X-RateLimit-Replenish-Rate",
            "X-RateLimit-Burst-Capacity", "X-RateLimit-Requested-Tokens");

    @RegisterExtension
    static final Backend backend = Backend.perClass();

    /**
     * The same bucket four ways: RedisRateLimiter's "one request a minute" (replenishRate 1, burstCapacity 60,
     * requestedTokens 60), and Limiter's exact equivalent (limit 1 a second, burst 60, cost 60) in a YAML and
     * a Java route, and Limiter's "1 a minute", which is the same bucket counted in permits, not tokens.
     * Limiter's clock stands still; RedisRateLimiter's is Redis' in whole seconds, so its bucket may have
     * taken back a token a second between the two requests (one as soon as they straddle a second).
     */
    @Test
    void limiterSendsWhatRedisRateLimiterSendsForTheSameBucket(TestRedis redis) {
        try (Gateway gateway = reactive(redis.url(), List.of(), GatewayFeaturesTests.FrozenTime.class)) {
            Map<String, String> expected = Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Replenish-Rate", "1", "X-RateLimit-Burst-Capacity",
                    "60", "X-RateLimit-Requested-Tokens", "60");
            for (String path : List.of("/redis/x", "/equivalent/x", "/java/x", "/per-minute/x")) {
                // A key of its own on each route: equivalent and java share their limiter, key for key.
                String key = UUID.randomUUID().toString();
                long start = System.nanoTime();
                HttpResponse<String> first = gateway.get(path, Map.of("X-Api-Key", key));
                assertThat(first.statusCode()).as(path).isEqualTo(200);
                assertThat(xRateLimitFields(first)).as(path).isEqualTo(expected);
                HttpResponse<String> second = gateway.get(path, Map.of("X-Api-Key", key));
                long refilled = path.equals("/redis/x") ? Duration.ofNanos(System.nanoTime() - start).toSeconds() + 1 : 0;
                assertThat(second.statusCode()).as(path).isEqualTo(429);
                Map<String, String> fields = new TreeMap<>(xRateLimitFields(second));
                assertThat(Long.parseLong(fields.remove("X-RateLimit-Remaining"))).as(path + " remaining").isBetween(0L, refilled);
                assertThat(fields).as(path).isEqualTo(Map.of("X-RateLimit-Replenish-Rate", "1", "X-RateLimit-Burst-Capacity", "60",
                        "X-RateLimit-Requested-Tokens", "60"));
            }
        }
    }

    /** Five a minute, a window: a replenish rate of 1 in twelfths of a permit, never 0. */
    @Test
    void aLimitBelowOnePermitASecondIsReportedScaledNeverAsZero(TestRedis redis) {
        try (Gateway gateway = reactive(redis.url(), List.of())) {
            HttpResponse<String> first = gateway.get("/filter/x", Map.of("X-Api-Key", UUID.randomUUID().toString()));
            assertThat(xRateLimitFields(first)).isEqualTo(Map.of("X-RateLimit-Remaining", "48", "X-RateLimit-Replenish-Rate", "1",
                    "X-RateLimit-Burst-Capacity", "60", "X-RateLimit-Requested-Tokens", "12"));
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"five-a-minute\";q=5;w=60");
        }
    }

    @Test
    void redisRateLimitersIncludeHeadersFalseTurnsThemOffForLimiterToo(TestRedis redis) {
        try (Gateway gateway = reactive(redis.url(), List.of(REDIS_RATE_LIMITER + "include-headers=false"))) {
            String key = UUID.randomUUID().toString();
            for (String path : List.of("/redis/x", "/equivalent/x", "/filter/x")) {
                HttpResponse<String> answer = gateway.get(path, Map.of("X-Api-Key", key));
                assertThat(answer.statusCode()).as(path).isEqualTo(200);
                assertThat(xRateLimitFields(answer)).as(path).isEmpty();
            }
            assertThat(gateway.get("/filter/x", Map.of("X-Api-Key", key)).headers().firstValue("RateLimit")).isPresent();
        }
    }

    @Test
    void redisRateLimitersHeaderNamesNameLimitersFields(TestRedis redis) {
        List<String> renamed = List.of(REDIS_RATE_LIMITER + "remaining-header=X-Left", REDIS_RATE_LIMITER + "replenish-rate-header=X-Rate",
                REDIS_RATE_LIMITER + "burst-capacity-header=X-Burst", REDIS_RATE_LIMITER + "requested-tokens-header=X-Cost");
        try (Gateway gateway = reactive(redis.url(), renamed)) {
            Map<String, String> expected = Map.of("X-Left", "0", "X-Rate", "1", "X-Burst", "60", "X-Cost", "60");
            for (String path : List.of("/redis/x", "/equivalent/x", "/per-minute/x")) {
                HttpResponse<String> answer = gateway.get(path, Map.of("X-Api-Key", UUID.randomUUID().toString()));
                assertThat(fields(answer, expected.keySet())).as(path).isEqualTo(expected);
                assertThat(xRateLimitFields(answer)).as(path).isEmpty();
            }
        }
    }

    @Test
    void limitersOwnSettingsComeBeforeRedisRateLimiters(TestRedis redis) {
        List<String> both = List.of(REDIS_RATE_LIMITER + "include-headers=false", REDIS_RATE_LIMITER + "remaining-header=X-Theirs",
                "limiter.gateway.redis-rate-limiter-headers=true", "limiter.gateway.remaining-header=X-Mine");
        try (Gateway gateway = reactive(redis.url(), both)) {
            String key = UUID.randomUUID().toString();
            HttpResponse<String> limiter = gateway.get("/equivalent/x", Map.of("X-Api-Key", key));
            assertThat(limiter.headers().firstValue("X-Mine")).hasValue("0");
            assertThat(limiter.headers().firstValue("X-Theirs")).isEmpty();
            assertThat(limiter.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("60");
            assertThat(xRateLimitFields(gateway.get("/redis/x", Map.of("X-Api-Key", key)))).isEmpty();
        }
    }

    /**
     * RequestRateLimiter in default-filters names its limiter there (limiter.name), as RedisRateLimiter's
     * settings are found there (the gateway binds them for each route); the one limiter is shared by the
     * routes, key for key.
     */
    @Test
    void requestRateLimiterInDefaultFiltersDecidesEveryRouteByTheLimiterItNames(TestRedis redis) {
        List<String> defaults = List.of("limiter.limiters.everyone.limit=3", "limiter.limiters.everyone.window=1h",
                WEBFLUX + "default-filters[0].name=RequestRateLimiter", WEBFLUX + "default-filters[0].args.rate-limiter=#{@limiter}",
                WEBFLUX + "default-filters[0].args.key-resolver=#{@apiKeyResolver}", WEBFLUX + "default-filters[0].args.limiter.name=everyone",
                WEBFLUX + "default-filters[0].args.limiter.cost=1");
        try (Gateway gateway = reactive(redis.url(), defaults)) {
            String key = UUID.randomUUID().toString();
            HttpResponse<String> first = gateway.get("/plain/x", Map.of("X-Api-Key", key));
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"everyone\";q=3;w=3600");
            assertThat(gateway.get("/other/x", Map.of("X-Api-Key", key)).statusCode()).isEqualTo(200);
            assertThat(gateway.get("/plain/x", Map.of("X-Api-Key", key)).statusCode()).isEqualTo(200);
            assertThat(gateway.get("/other/x", Map.of("X-Api-Key", key)).statusCode()).isEqualTo(429);
            assertThat(gateway.get("/other/x", Map.of("X-Api-Key", UUID.randomUUID().toString())).statusCode()).isEqualTo(200);
        }
    }

    /** The gateway applies a default filter to each route as the route's own: messages name default-filters all the same. */
    @Test
    void aLimiterFilterInDefaultFiltersLimitsEveryRouteAndIsNamedThereInMessages(TestRedis redis) {
        List<String> defaults = List.of("limiter.limiters.everyone.limit=3", "limiter.limiters.everyone.window=1h",
                WEBFLUX + "default-filters[0]=Limiter=everyone");
        try (Gateway gateway = reactive(redis.url(), defaults)) {
            assertThat(gateway.get("/plain/x").statusCode()).isEqualTo(200);
            assertThat(gateway.get("/other/x").statusCode()).isEqualTo(200);
            assertThat(gateway.get("/plain/x").statusCode()).isEqualTo(200);
            assertThat(gateway.get("/other/x").statusCode()).isEqualTo(429);
            LimiterGatewayFilterFactory factory = gateway.context().getBean(LimiterGatewayFilterFactory.class);
            LimiterGatewayFilterFactory.Config fromDefaults = new LimiterGatewayFilterFactory.Config().setLimiter("nope");
            fromDefaults.setRouteId("plain");
            assertThatThrownBy(() -> factory.apply(fromDefaults)).isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("spring.cloud.gateway.server.webflux.default-filters[0].limiter")
                .hasMessageNotContaining("routes[");
            LimiterGatewayFilterFactory.Config own = new LimiterGatewayFilterFactory.Config().setLimiter("nope");
            own.setRouteId("filter");
            assertThatThrownBy(() -> factory.apply(own)).isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("spring.cloud.gateway.server.webflux.routes[filter].filters[Limiter].limiter");
        }
    }

    @Test
    void aJavaRouteNamesItsLimiterAndCostAndAMistakeIsReportedWhereItIsMade(TestRedis redis) {
        try (Gateway gateway = reactive(redis.url(), List.of())) {
            HttpResponse<String> first = gateway.get("/java/x", Map.of("X-Api-Key", UUID.randomUUID().toString()));
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValueSatisfying((policy) -> assertThat(policy).startsWith("\"per-second-burst\""));
            assertThat(first.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("60");
            LimiterRateLimiter limiter = gateway.context().getBean("limiter", LimiterRateLimiter.class);
            assertThatThrownBy(() -> limiter.using("nope")).isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("LimiterRateLimiter.using(\"nope\", 1)")
                .hasMessageContaining("There is no limiter 'nope'");
            assertThatThrownBy(() -> limiter.using("per-minute", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limiter.cost");
        }
    }

    /** RequestRateLimiter answers an empty key 403; a route moved to the Limiter filter keeps it with an exception handler. */
    @Test
    void aMissingKeyOfTheLimiterFilterCanBeAnswered403AsRequestRateLimiterDoes(TestRedis redis) {
        try (Gateway plain = reactive(redis.url(), List.of()); Gateway forbidding = reactive(redis.url(), List.of(), MissingKeyForbidden.class)) {
            assertThat(plain.get("/filter/x").statusCode()).isEqualTo(400);
            assertThat(forbidding.get("/filter/x").statusCode()).isEqualTo(403);
            assertThat(forbidding.get("/filter/x", Map.of("X-Api-Key", UUID.randomUUID().toString())).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void theServerMvcGatewayReportsAndNamesTheFieldsAlike(TestRedis redis) {
        try (Gateway gateway = serverMvc(redis.url(), List.of(REDIS_RATE_LIMITER + "remaining-header=X-Left",
                "limiter.gateway.requested-tokens-header=X-Cost"))) {
            HttpResponse<String> first = gateway.get("/per-minute/x");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(fields(first, List.of("X-Left", "X-RateLimit-Replenish-Rate", "X-RateLimit-Burst-Capacity", "X-Cost")))
                .isEqualTo(Map.of("X-Left", "0", "X-RateLimit-Replenish-Rate", "1", "X-RateLimit-Burst-Capacity", "60", "X-Cost", "60"));
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        }
        try (Gateway gateway = serverMvc(redis.url(), List.of(REDIS_RATE_LIMITER + "include-headers=false"))) {
            HttpResponse<String> first = gateway.get("/per-minute/x");
            assertThat(first.headers().firstValue("RateLimit")).isPresent();
            assertThat(xRateLimitFields(first)).isEmpty();
        }
    }

    private static Map<String, String> xRateLimitFields(HttpResponse<String> answer) {
        return fields(answer, DEFAULT_NAMES);
    }

    private static Map<String, String> fields(HttpResponse<String> answer, Iterable<String> names) {
        Map<String, String> fields = new TreeMap<>();
        names.forEach((name) -> answer.headers().firstValue(name).ifPresent((value) -> fields.put(name, value)));
        return fields;
    }

    /**
     * A reactive gateway: the gateway's own RedisRateLimiter at one request a minute (route redis), Limiter's
     * equivalent of it (equivalent; java, a Java route), Limiter's one a minute (per-minute), the Limiter
     * filter at five a minute per caller (filter), and two routes without filters (plain, other).
     */
    private static Gateway reactive(String redisUrl, List<String> more, Class<?>... beans) {
        String routes = WEBFLUX + "routes";
        List<String> properties = new ArrayList<>(List.of("spring.data.redis.url=" + redisUrl,
                "limiter.key-prefix=limiter-headers-test-" + UUID.randomUUID(), "limiter.redis.timeout=2s", "limiter.redis.connect-timeout=5s",
                "limiter.limiters.per-second-burst.algorithm=token-bucket", "limiter.limiters.per-second-burst.limit=1",
                "limiter.limiters.per-second-burst.window=1s", "limiter.limiters.per-second-burst.burst=60",
                "limiter.limiters.per-minute.algorithm=token-bucket", "limiter.limiters.per-minute.limit=1",
                "limiter.limiters.per-minute.window=1m",
                "limiter.limiters.five-a-minute.algorithm=fixed-window", "limiter.limiters.five-a-minute.limit=5",
                "limiter.limiters.five-a-minute.window=1m",
                routes + "[0].id=redis", routes + "[0].uri=" + backend.url(), routes + "[0].predicates[0]=Path=/redis/**",
                routes + "[0].filters[0].name=RequestRateLimiter", routes + "[0].filters[0].args.key-resolver=#{@apiKeyResolver}",
                routes + "[0].filters[0].args.redis-rate-limiter.replenishRate=1", routes + "[0].filters[0].args.redis-rate-limiter.burstCapacity=60",
                routes + "[0].filters[0].args.redis-rate-limiter.requestedTokens=60",
                routes + "[1].id=equivalent", routes + "[1].uri=" + backend.url(), routes + "[1].predicates[0]=Path=/equivalent/**",
                routes + "[1].filters[0].name=RequestRateLimiter", routes + "[1].filters[0].args.key-resolver=#{@apiKeyResolver}",
                routes + "[1].filters[0].args.rate-limiter=#{@limiter}", routes + "[1].filters[0].args.limiter.name=per-second-burst",
                routes + "[1].filters[0].args.limiter.cost=60",
                routes + "[2].id=per-minute", routes + "[2].uri=" + backend.url(), routes + "[2].predicates[0]=Path=/per-minute/**",
                routes + "[2].filters[0].name=RequestRateLimiter", routes + "[2].filters[0].args.key-resolver=#{@apiKeyResolver}",
                routes + "[2].filters[0].args.rate-limiter=#{@limiter}",
                routes + "[3].id=filter", routes + "[3].uri=" + backend.url(), routes + "[3].predicates[0]=Path=/filter/**",
                routes + "[3].filters[0].name=Limiter", routes + "[3].filters[0].args.limiter=five-a-minute",
                routes + "[3].filters[0].args.key=#request.headers['X-Api-Key']",
                routes + "[4].id=plain", routes + "[4].uri=" + backend.url(), routes + "[4].predicates[0]=Path=/plain/**",
                routes + "[5].id=other", routes + "[5].uri=" + backend.url(), routes + "[5].predicates[0]=Path=/other/**",
                "test.backend=" + backend.url()));
        properties.addAll(more);
        List<Class<?>> sources = new ArrayList<>(List.of(ReactiveRoutes.class));
        sources.addAll(List.of(beans));
        return Gateway.start(WebApplicationType.REACTIVE, properties, sources.toArray(Class<?>[]::new));
    }

    /** A Server MVC gateway with Limiter's one a minute (route per-minute, one key for the route). */
    private static Gateway serverMvc(String redisUrl, List<String> more) {
        String routes = "spring.cloud.gateway.server.webmvc.routes";
        List<String> properties = new ArrayList<>(List.of("spring.data.redis.url=" + redisUrl,
                "limiter.key-prefix=limiter-headers-test-" + UUID.randomUUID(), "limiter.redis.timeout=2s", "limiter.redis.connect-timeout=5s",
                "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration,"
                        + "org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration",
                WEBFLUX + "enabled=false",
                "limiter.limiters.per-minute.algorithm=token-bucket", "limiter.limiters.per-minute.limit=1",
                "limiter.limiters.per-minute.window=1m",
                routes + "[0].id=per-minute", routes + "[0].uri=" + backend.url(), routes + "[0].predicates[0]=Path=/per-minute/**",
                routes + "[0].filters[0]=Limiter=per-minute"));
        properties.addAll(more);
        return Gateway.start(WebApplicationType.SERVLET, properties);
    }

    @Configuration(proxyBeanMethods = false)
    static class ReactiveRoutes {

        @Bean
        KeyResolver apiKeyResolver() {
            return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
        }

        /** RedisRateLimiter's Java DSL route, moved to Limiter: the limiter and cost the route's arguments would name. */
        @Bean
        RouteLocator javaRoutes(RouteLocatorBuilder builder, @Qualifier("limiter") LimiterRateLimiter limiter, KeyResolver apiKeyResolver,
                Environment environment) {
            return builder.routes()
                .route("java", (route) -> route.path("/java/**")
                    .filters((filters) -> filters.requestRateLimiter((config) -> config.setRateLimiter(limiter.using("per-second-burst", 60))
                        .setKeyResolver(apiKeyResolver)))
                    .uri(environment.getRequiredProperty("test.backend")))
                .build();
        }
    }

    @RestControllerAdvice
    static class MissingKeyForbidden {

        @ExceptionHandler(MissingRateLimitKeyException.class)
        ResponseEntity<Void> forbidden() {
            return ResponseEntity.status(HttpStatus.FORBIDDEN).build();
        }
    }
}
