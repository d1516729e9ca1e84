package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Plans over HTTP in WebFlux, on Redis through its reactive API: the plan of each subscription comes
 * from the exchange's header (the default plan without one) or a PlanResolver bean, each plan's
 * limits and RateLimit fields answer, an unknown plan is a 500, and unlimited plans and keys pass
 * without RateLimit fields or Redis state.
 */
@RedisTest
@Timeout(60)
class PlansWebFluxTests {

    private final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withPropertyValues("limiter.limiters.api.algorithm=fixed-window", "limiter.limiters.api.default-plan=free",
                "limiter.limiters.api.plans.free.limit=1", "limiter.limiters.api.plans.free.window=1m",
                "limiter.limiters.api.plans.pro.limit=3", "limiter.limiters.api.plans.pro.window=1m",
                "limiter.limiters.api.plans.internal.unlimited=true", "limiter.limiters.api.unlimited-keys=ops",
                "limiter.limiters.accounts.algorithm=fixed-window", "limiter.limiters.accounts.plans.free.limit=1",
                "limiter.limiters.accounts.plans.free.window=1m", "limiter.limiters.accounts.plans.pro.limit=2",
                "limiter.limiters.accounts.plans.pro.window=1m")
        // Time stands still: what a test takes stays taken.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean("accountPlans", PlanResolver.class, () -> (call, key) -> {
            ServerHttpRequest request = (ServerHttpRequest) call.request();
            return Map.of("alice", "free", "carol", "pro").get(request.getHeaders().getFirst("X-User"));
        })
        .withUserConfiguration(PlannedController.class);

    @Test
    void thePlanHeaderPicksThePlanAndEachPlanAnswersWithItsOwnLimits() {
        this.contextRunner.run((context) -> {
            WebTestClient client = client(context);
            get(client, "/plan", "alice", null).expectStatus().isOk().expectHeader().valueEquals("RateLimit-Policy", "\"api\";q=1;w=60");
            get(client, "/plan", "alice", "free").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("RateLimit-Policy", "\"api\";q=1;w=60")
                .expectBody().jsonPath("$.plan").isEqualTo("free");
            for (int i = 0; i < 3; i++) {
                get(client, "/plan", "alice", "pro").expectStatus().isOk().expectHeader().valueEquals("RateLimit-Policy", "\"api\";q=3;w=60");
            }
            get(client, "/plan", "alice", "pro").expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("RateLimit-Policy", "\"api\";q=3;w=60")
                .expectBody().jsonPath("$.plan").isEqualTo("pro");
            get(client, "/plan", "bob", null).expectStatus().isOk();
        });
    }

    @Test
    void anUnknownPlanIsAServerError() {
        this.contextRunner.run((context) -> {
            WebTestClient client = client(context);
            get(client, "/plan", "alice", "gold").expectStatus().isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR);
            // Nothing was charged.
            get(client, "/plan", "alice", null).expectStatus().isOk();
        });
    }

    @Test
    void unlimitedPlansAndKeysPassWithoutRateLimitFieldsOrRedisState() {
        this.contextRunner.run((context) -> {
            WebTestClient client = client(context);
            for (int i = 0; i < 10; i++) {
                get(client, "/plan", "ops", null).expectStatus().isOk().expectHeader().doesNotExist("RateLimit-Policy")
                    .expectHeader().doesNotExist("RateLimit");
                get(client, "/plan", "alice", "internal").expectStatus().isOk().expectHeader().doesNotExist("RateLimit");
            }
            assertThat(PlansWebMvcTests.keysUnder(context.getBean(StringRedisTemplate.class), this.keyPrefix + ":{api")).isEmpty();
        });
    }

    @Test
    void aPlanResolverBeanPicksThePlanFromTheExchangesRequest() {
        this.contextRunner.run((context) -> {
            WebTestClient client = client(context);
            get(client, "/resolved", "alice", null).expectStatus().isOk().expectHeader()
                .valueEquals("RateLimit-Policy", "\"accounts\";q=1;w=60");
            get(client, "/resolved", "alice", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            get(client, "/resolved", "carol", null).expectStatus().isOk().expectHeader()
                .valueEquals("RateLimit-Policy", "\"accounts\";q=2;w=60");
            get(client, "/resolved", "carol", null).expectStatus().isOk();
            get(client, "/resolved", "carol", null).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            get(client, "/resolved", "dave", null).expectStatus().isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR);
        });
    }

    private static WebTestClient client(AssertableReactiveWebApplicationContext context) {
        assertThat(context).hasNotFailed();
        return WebTestClient.bindToApplicationContext(context).build();
    }

    private static WebTestClient.ResponseSpec get(WebTestClient client, String uri, String user, String plan) {
        WebTestClient.RequestHeadersSpec<?> request = client.get().uri(uri).header("X-User", user);
        if (plan != null) {
            request = request.header("X-Plan", plan);
        }
        return request.exchange();
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
