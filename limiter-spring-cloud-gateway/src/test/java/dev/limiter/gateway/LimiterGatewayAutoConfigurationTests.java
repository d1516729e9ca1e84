package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterSites;
import dev.limiter.autoconfigure.web.LimiterWebFluxAutoConfiguration;
import dev.limiter.gateway.internal.GatewayLimits;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/** When the gateway auto-configuration applies, and that it leaves the gateway's own RateLimiter in place. */
class LimiterGatewayAutoConfigurationTests {

    /** Limiter's auto-configuration, on the in-memory backend: no Redis needed to see which beans exist. */
    private final ReactiveWebApplicationContextRunner limiterOnly = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class,
                LimiterGatewayAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory");

    /** A whole reactive gateway application: Spring Cloud Gateway's auto-configuration, its Redis one included. */
    private final ReactiveWebApplicationContextRunner gatewayApp = new ReactiveWebApplicationContextRunner()
        .withUserConfiguration(App.class)
        .withPropertyValues("limiter.backend=memory", "spring.data.redis.url=redis://127.0.0.1:1", "management.endpoints.web.exposure.include=");

    @Test
    void withTheReactiveGatewayTheLimiterBeanAndFilterExist() {
        limiterOnly.run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(GatewayLimits.class).hasSingleBean(LimiterGatewayFilterFactory.class);
            assertThat(context.getBean("limiter")).isInstanceOf(LimiterRateLimiter.class);
        });
    }

    /** Limiters that only YAML routes use are used: the startup check names no unused limiter, and each one's routes are known. */
    @Test
    void theLimitersOfYamlRoutesCountAsUsed() {
        String routes = "spring.cloud.gateway.server.webflux.routes";
        gatewayApp.withPropertyValues("limiter.limiters.status.limit=10", "limiter.limiters.status.window=1m",
                "limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=1m", "limiter.limiters.catalog.limit=5",
                "limiter.limiters.catalog.window=1m", "limiter.limiters.search.limit=5", "limiter.limiters.search.window=1m",
                routes + "[0].id=status", routes + "[0].uri=http://127.0.0.1:9", routes + "[0].predicates[0]=Path=/status/**",
                routes + "[0].filters[0]=Limiter=status",
                routes + "[1].id=orders", routes + "[1].uri=http://127.0.0.1:9", routes + "[1].predicates[0]=Path=/orders/**",
                routes + "[1].filters[0].name=Limiter", routes + "[1].filters[0].args.limiter=orders",
                routes + "[1].filters[0].args.key=#request.headers['X-User-Id']",
                routes + "[2].id=catalog", routes + "[2].uri=http://127.0.0.1:9", routes + "[2].predicates[0]=Path=/catalog/**",
                routes + "[2].filters[0].name=RequestRateLimiter", routes + "[2].filters[0].args.rate-limiter=#{@limiter}",
                routes + "[3].id=search", routes + "[3].uri=http://127.0.0.1:9", routes + "[3].predicates[0]=Path=/search/**",
                routes + "[3].filters[0].name=Limiter")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                Map<String, List<String>> sites = new TreeMap<>();
                context.getBeansOfType(LimiterSites.class).values().forEach((each) -> sites.putAll(each.sites()));
                assertThat(sites).containsOnly(entry("status", List.of(routes + "[0] (route status)")),
                        entry("orders", List.of(routes + "[1] (route orders)")), entry("catalog", List.of(routes + "[2] (route catalog)")),
                        entry("search", List.of(routes + "[3] (route search)")));
            });
    }

    /** The same for the Server MVC gateway's YAML routes, in a list and in a map by id. */
    @Test
    void theLimitersOfServerMvcYamlRoutesCountAsUsed() {
        String routes = "spring.cloud.gateway.server.webmvc.routes";
        new WebApplicationContextRunner().withUserConfiguration(App.class)
            .withPropertyValues("limiter.backend=memory", "spring.data.redis.url=redis://127.0.0.1:1", "management.endpoints.web.exposure.include=",
                    "spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration,"
                            + "org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration",
                    "spring.cloud.gateway.server.webflux.enabled=false", "limiter.limiters.status.limit=10", "limiter.limiters.status.window=1m", "limiter.limiters.orders.limit=5",
                    "limiter.limiters.orders.window=1m", "limiter.limiters.reports.limit=5", "limiter.limiters.reports.window=1m",
                    routes + "[0].id=status", routes + "[0].uri=http://127.0.0.1:9", routes + "[0].predicates[0]=Path=/status/**",
                    routes + "[0].filters[0]=Limiter=status",
                    routes + "[1].id=orders", routes + "[1].uri=http://127.0.0.1:9", routes + "[1].predicates[0]=Path=/orders/**",
                    routes + "[1].filters[0].name=Limiter", routes + "[1].filters[0].args.limiter=orders",
                    routes + "-map.reports.uri=http://127.0.0.1:9", routes + "-map.reports.predicates[0]=Path=/reports/**",
                    routes + "-map.reports.filters[0]=Limiter=reports")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                Map<String, List<String>> sites = new TreeMap<>();
                context.getBeansOfType(LimiterSites.class).values().forEach((each) -> sites.putAll(each.sites()));
                assertThat(sites).containsOnly(entry("status", List.of(routes + "[0] (route status)")),
                        entry("orders", List.of(routes + "[1] (route orders)")), entry("reports", List.of(routes + "-map.reports")));
            });
    }

    @Test
    void backsOffWithoutTheGatewayOnTheClassPath() {
        limiterOnly.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway")).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(GatewayLimits.class)
                .doesNotHaveBean(LimiterGatewayFilterFactory.class)
                .doesNotHaveBean("limiter")
                .doesNotHaveBean(LimiterGatewayProperties.class);
        });
    }

    @Test
    void backsOffWhenLimiterIsDisabled() {
        limiterOnly.withPropertyValues("limiter.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(GatewayLimits.class).doesNotHaveBean(LimiterGatewayFilterFactory.class).doesNotHaveBean("limiter");
        });
    }

    @Test
    void routesNamingNoRateLimiterKeepTheGatewaysRedisRateLimiter() {
        gatewayApp.run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("limiter")).isInstanceOf(LimiterRateLimiter.class);
            assertThat(context).hasSingleBean(RedisRateLimiter.class);
            assertThat(context.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
                .isInstanceOf(RedisRateLimiter.class);
        });
    }

    @Test
    void withoutTheGatewaysRedisRateLimiterTheLimiterBeanIsStillNoRoutesDefault() {
        // No Redis template, so no RedisRateLimiter: RequestRateLimiter must not silently default to Limiter's bean.
        gatewayApp.withPropertyValues("spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(RedisRateLimiter.class);
                context.getBeanProvider(RequestRateLimiterGatewayFilterFactory.class)
                    .ifAvailable((factory) -> assertThat(factory.getDefaultRateLimiter()).isNotInstanceOf(LimiterRateLimiter.class));
            });
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        KeyResolver apiKeyResolver() {
            return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
        }
    }
}
