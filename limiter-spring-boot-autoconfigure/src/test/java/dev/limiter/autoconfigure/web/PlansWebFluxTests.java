package dev.limiter.autoconfigure.web;

import java.util.Map;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Plans over HTTP in WebFlux, on Redis through its reactive API: the cases shared with Spring MVC
 * ({@link PlansCases}), the plan of each subscription coming from the exchange's request.
 */
@RedisTest
@Timeout(60)
class PlansWebFluxTests extends PlansCases {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withPropertyValues(PLANS)
        // Time stands still: what a test takes stays taken.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean("accountPlans", PlanResolver.class, () -> (call, key) -> {
            ServerHttpRequest request = (ServerHttpRequest) call.request();
            return Map.of("alice", "free", "carol", "pro").get(request.getHeaders().getFirst("X-User"));
        })
        .withUserConfiguration(PlannedController.class);

    @Override
    Application application() {
        return WebStack.webFlux(this.contextRunner);
    }

    @Override
    String planExpression() {
        return "#request.getHeaders().getFirst('X-Plan')";
    }

    @RestController
    static class PlannedController {

        @GetMapping("/plan")
        @RateLimited(name = "api", key = "#request.getHeaders().getFirst('X-User')", plan = "#request.getHeaders().getFirst('X-Plan')")
        Mono<String> plan() {
            return Mono.just("ok");
        }

        @GetMapping("/resolved")
        @RateLimited(name = "accounts", key = "#request.getHeaders().getFirst('X-User')", planResolver = "accountPlans")
        Mono<String> resolved() {
            return Mono.just("ok");
        }
    }
}
