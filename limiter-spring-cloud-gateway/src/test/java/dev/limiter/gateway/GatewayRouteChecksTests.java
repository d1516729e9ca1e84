package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.limiter.gateway.mvc.LimiterFilterFunctions;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Mistakes in the limiters that properties-defined routes name fail the gateway's startup, naming the route's
 * property, the bad value and the fix, instead of answering 500 to the route's first request: an unknown
 * limiter (the route's id when none is named), a limiter with plans under RequestRateLimiter, and
 * RedisRateLimiter's arguments left beside {@code rate-limiter: "#{@limiter}"}. Routes no property
 * defines (Java routes) are still checked on their first request. Real gateways, on a real Redis.
 */
@RedisTest
class GatewayRouteChecksTests {

    private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

    private static final String MVC_ROUTES = "spring.cloud.gateway.server.webmvc.routes";

    @Test
    void requestRateLimiterWithoutALimiterForItsRouteIdFailsStartup(TestRedis redis) {
        LimiterConfigurationException ex = startupFailure(() -> reactive(redis, requestRateLimiterRoute("catalog")));
        assertThat(ex.getWhere()).isEqualTo(ROUTES + "[0].filters[0].args.limiter.name");
        assertThat(ex.getValue()).isEqualTo("catalog");
        assertThat(ex.getMessage()).contains("Route 'catalog'", "the limiter named as the route's id", "no limiter 'catalog'",
                "Configure limiter.limiters.catalog", "set the filter argument limiter.name to one of the limiters configured: orders");
    }

    @Test
    void requestRateLimiterNamingAnUnknownLimiterFailsStartup(TestRedis redis) {
        List<String> properties = requestRateLimiterRoute("catalog");
        properties.add(ROUTES + "[0].filters[0].args.limiter.name=ordrs");
        LimiterConfigurationException ex = startupFailure(() -> reactive(redis, properties));
        assertThat(ex.getWhere()).isEqualTo(ROUTES + "[0].filters[0].args.limiter.name");
        assertThat(ex.getValue()).isEqualTo("ordrs");
        assertThat(ex.getMessage()).contains("no limiter 'ordrs'", "Configure limiter.limiters.ordrs", "orders");
    }

    @Test
    void requestRateLimiterNamingALimiterWithPlansFailsStartup(TestRedis redis) {
        List<String> properties = requestRateLimiterRoute("catalog");
        properties.addAll(List.of(ROUTES + "[0].filters[0].args.limiter.name=tiered", "limiter.limiters.tiered.plan=#request.headers['X-Plan']",
                "limiter.limiters.tiered.default-plan=free", "limiter.limiters.tiered.plans.free.limit=2",
                "limiter.limiters.tiered.plans.free.window=1h"));
        LimiterConfigurationException ex = startupFailure(() -> reactive(redis, properties));
        assertThat(ex.getWhere()).isEqualTo(ROUTES + "[0].filters[0].args.limiter.name");
        assertThat(ex.getMessage()).contains("has plans [free]", "Use the Limiter filter");
    }

    @Test
    void redisRateLimiterArgumentsBesideLimiterFailStartupSayingWhatReplacesThem(TestRedis redis) {
        List<String> properties = requestRateLimiterRoute("orders");
        properties.addAll(List.of(ROUTES + "[0].filters[0].args.redis-rate-limiter.replenishRate=10",
                ROUTES + "[0].filters[0].args.redis-rate-limiter.burstCapacity=20",
                ROUTES + "[0].filters[0].args.redis-rate-limiter.requestedTokens=1"));
        LimiterConfigurationException ex = startupFailure(() -> reactive(redis, properties));
        assertThat(ex.getWhere()).isEqualTo(ROUTES + "[0].filters[0].args.redis-rate-limiter.replenishRate");
        assertThat(ex.getValue()).isEqualTo("10");
        assertThat(ex.getMessage()).contains("Route 'orders'", "would be ignored",
                "redis-rate-limiter.replenishRate: 10 is limiter.limiters.orders.limit: 10 with window: 1s (algorithm: token-bucket)",
                "redis-rate-limiter.burstCapacity: 20 is limiter.limiters.orders.burst: 20",
                "redis-rate-limiter.requestedTokens: 1 is the filter argument limiter.cost: 1");
    }

    /**
     * The reactive gateway loading its routes at startup failed on this already; the check names the filter's
     * property as written (routes[0].filters[0]) rather than by route id and filter name.
     */
    @Test
    void aReactiveLimiterFilterNamingAnUnknownLimiterFailsStartup(TestRedis redis) {
        List<String> properties = routeNamed(ROUTES, "search");
        properties.add(ROUTES + "[0].filters[0]=Limiter");
        LimiterConfigurationException ex = startupFailure(() -> reactive(redis, properties));
        assertThat(ex.getWhere()).isEqualTo(ROUTES + "[0].filters[0].args.limiter");
        assertThat(ex.getMessage()).contains("no limiter 'search'", "Configure limiter.limiters.search");
    }

    @Test
    void aServerMvcYamlRouteNamingAnUnknownLimiterFailsStartup(TestRedis redis) {
        List<String> properties = routeNamed(MVC_ROUTES, "orders");
        properties.add(MVC_ROUTES + "[0].filters[0]=Limiter=ordrs");
        LimiterConfigurationException ex = startupFailure(() -> serverMvc(redis, properties));
        assertThat(ex.getWhere()).isEqualTo(MVC_ROUTES + "[0].filters[0].args.limiter");
        assertThat(ex.getValue()).isEqualTo("ordrs");
        assertThat(ex.getMessage()).contains("Configure limiter.limiters.ordrs", "orders");
    }

    @Test
    void aServerMvcYamlRouteWhoseKeyDoesNotParseFailsStartup(TestRedis redis) {
        List<String> properties = routeNamed(MVC_ROUTES, "orders");
        properties.addAll(List.of(MVC_ROUTES + "[0].filters[0].name=Limiter", MVC_ROUTES + "[0].filters[0].args.limiter=orders",
                MVC_ROUTES + "[0].filters[0].args.key=#request.getHeader('X-Api-Key'"));
        LimiterConfigurationException ex = startupFailure(() -> serverMvc(redis, properties));
        assertThat(ex.getWhere()).startsWith(MVC_ROUTES + "[0].filters[0].args.key");
    }

    /** A Java route is no property: the gateway starts, and its first request is where the unknown limiter shows. */
    @Test
    void aJavaRouteNamingAnUnknownLimiterIsCheckedOnItsFirstRequest(TestRedis redis) {
        try (Backend backend = Backend.start(); Gateway gateway = serverMvc(redis, new ArrayList<>(List.of("test.backend=" + backend.url())),
                UnknownLimiterJavaRoute.class)) {
            assertThat(gateway.get("/java/1").statusCode()).isEqualTo(500);
            assertThat(backend.served()).isZero();
        }
    }

    /** RequestRateLimiter with Limiter, naming no limiter: the route's id names it. */
    private static List<String> requestRateLimiterRoute(String id) {
        List<String> properties = routeNamed(ROUTES, id);
        properties.addAll(List.of(ROUTES + "[0].filters[0].name=RequestRateLimiter", ROUTES + "[0].filters[0].args.rate-limiter=#{@limiter}",
                ROUTES + "[0].filters[0].args.key-resolver=#{@apiKeyResolver}"));
        return properties;
    }

    /** Route 0 with {@code id}, its filters to add; one limiter configured, orders. */
    private static List<String> routeNamed(String routes, String id) {
        return new ArrayList<>(List.of("limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=1h", routes + "[0].id=" + id,
                routes + "[0].uri=http://127.0.0.1:9", routes + "[0].predicates[0]=Path=/" + id + "/**"));
    }

    private static Gateway reactive(TestRedis redis, List<String> properties) {
        List<String> all = new ArrayList<>(properties);
        all.addAll(List.of("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=" + ReactiveGatewayTests.uniquePrefix()));
        return Gateway.start(WebApplicationType.REACTIVE, all, GatewayDisabledTests.KeyResolvers.class);
    }

    private static Gateway serverMvc(TestRedis redis, List<String> properties, Class<?>... sources) {
        List<String> all = new ArrayList<>(properties);
        all.addAll(List.of("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=" + ReactiveGatewayTests.uniquePrefix(),
                "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration,"
                        + "org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration",
                "spring.cloud.gateway.server.webflux.enabled=false", "limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=1h"));
        return Gateway.start(WebApplicationType.SERVLET, all, sources);
    }

    /** The LimiterConfigurationException that failed the startup, wherever in the causes Spring put it. */
    private static LimiterConfigurationException startupFailure(Supplier<Gateway> start) {
        try {
            start.get().close();
        }
        catch (RuntimeException ex) {
            for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
                if (cause instanceof LimiterConfigurationException configuration) {
                    return configuration;
                }
            }
            throw new AssertionError("The startup failed without a LimiterConfigurationException", ex);
        }
        throw new AssertionError("The gateway started");
    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownLimiterJavaRoute {

        @Bean
        RouterFunction<ServerResponse> javaRoute(org.springframework.core.env.Environment environment) {
            return route("java-route").GET("/java/**", http())
                .before(uri(environment.getRequiredProperty("test.backend")))
                .filter(LimiterFilterFunctions.limiter("nonesuch"))
                .build();
        }
    }
}
