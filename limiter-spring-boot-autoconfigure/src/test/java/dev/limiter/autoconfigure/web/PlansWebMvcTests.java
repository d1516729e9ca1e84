package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.RateLimited;
import dev.limiter.spring.UnknownPlanException;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.util.function.ThrowingConsumer;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Plans over HTTP in Spring MVC, on Redis: the plan comes from a request header (the default plan
 * without one) or a PlanResolver bean, each plan's limits and RateLimit fields answer, an unknown plan
 * is a server error, and unlimited plans and keys pass without RateLimit fields or Redis state.
 */
@RedisTest
@Timeout(60)
class PlansWebMvcTests {

    private final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
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
            HttpServletRequest request = (HttpServletRequest) call.request();
            return Map.of("alice", "free", "carol", "pro").get(request.getHeader("X-User"));
        })
        .withUserConfiguration(PlannedController.class);

    @Test
    void thePlanHeaderPicksThePlanAndEachPlanAnswersWithItsOwnLimits() {
        this.contextRunner.run(withMvc((mvc) -> {
            // No X-Plan: the default plan, free, 1 a minute.
            assertThat(mvc.get().uri("/plan").header("X-User", "alice")).hasStatusOk().hasHeader("RateLimit-Policy", "\"api\";q=1;w=60");
            assertThat(mvc.get().uri("/plan").header("X-User", "alice").header("X-Plan", "free"))
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit-Policy", "\"api\";q=1;w=60")
                .bodyJson().satisfies((body) -> {
                    assertThat(body).extractingPath("$.plan").isEqualTo("free");
                    assertThat(body).extractingPath("$.detail").asString().startsWith("Rate limit 'api' (plan 'free') exceeded");
                });
            // Alice upgrades: pro counts afresh, 3 a minute.
            for (int i = 0; i < 3; i++) {
                assertThat(mvc.get().uri("/plan").header("X-User", "alice").header("X-Plan", "pro")).hasStatusOk()
                    .hasHeader("RateLimit-Policy", "\"api\";q=3;w=60");
            }
            assertThat(mvc.get().uri("/plan").header("X-User", "alice").header("X-Plan", "pro")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit-Policy", "\"api\";q=3;w=60")
                .satisfies((result) -> assertThat(result.getResponse().getHeader("RateLimit")).startsWith("\"api\";r=0;t="))
                .bodyJson().extractingPath("$.plan").isEqualTo("pro");
            assertThat(mvc.get().uri("/plan").header("X-User", "bob")).hasStatusOk();
        }));
    }

    @Test
    void anUnknownPlanIsAServerError() {
        this.contextRunner.run(withMvc((mvc) -> {
            // MockMvc hands the unhandled exception back; a servlet container answers it with 500.
            assertThat(mvc.get().uri("/plan").header("X-User", "alice").header("X-Plan", "gold")).hasFailed().failure().rootCause()
                .isInstanceOfSatisfying(UnknownPlanException.class, (ex) -> {
                    assertThat(ex.getPlan()).isEqualTo("gold");
                    assertThat(ex.getMessage()).contains("#request.getHeader('X-Plan')");
                });
            assertThat(mvc.get().uri("/plan").header("X-User", "alice")).as("nothing was charged").hasStatusOk();
        }));
    }

    @Test
    void unlimitedPlansAndKeysPassWithoutRateLimitFieldsOrRedisState() {
        this.contextRunner.run((context) -> {
            MockMvcTester mvc = MockMvcTester.from(context);
            for (int i = 0; i < 10; i++) {
                assertThat(mvc.get().uri("/plan").header("X-User", "ops")).hasStatusOk().doesNotContainHeader("RateLimit-Policy")
                    .doesNotContainHeader("RateLimit");
                assertThat(mvc.get().uri("/plan").header("X-User", "alice").header("X-Plan", "internal")).hasStatusOk()
                    .doesNotContainHeader("RateLimit");
            }
            assertThat(keysUnder(context.getBean(StringRedisTemplate.class), this.keyPrefix + ":{api")).isEmpty();
        });
    }

    @Test
    void aPlanResolverBeanPicksThePlanFromTheRequest() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/resolved").header("X-User", "alice")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"accounts\";q=1;w=60");
            assertThat(mvc.get().uri("/resolved").header("X-User", "alice")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(mvc.get().uri("/resolved").header("X-User", "carol")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"accounts\";q=2;w=60");
            assertThat(mvc.get().uri("/resolved").header("X-User", "carol")).hasStatusOk();
            assertThat(mvc.get().uri("/resolved").header("X-User", "carol")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            // Nobody the resolver knows, and no default plan.
            assertThat(mvc.get().uri("/resolved").header("X-User", "dave")).hasFailed().failure().rootCause()
                .isInstanceOf(UnknownPlanException.class)
                .hasMessageContaining("picked no plan (null)");
        }));
    }

    static List<String> keysUnder(StringRedisTemplate redis, String prefix) {
        try (Cursor<String> cursor = redis.scan(ScanOptions.scanOptions().match(prefix + "*").count(1000).build())) {
            return cursor.stream().toList();
        }
    }

    private static ContextConsumer<AssertableWebApplicationContext> withMvc(ThrowingConsumer<MockMvcTester> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            test.acceptWithException(MockMvcTester.from(context));
        };
    }

    @RestController
    static class PlannedController {

        @GetMapping("/plan")
        @RateLimited(name = "api", key = "#request.getHeader('X-User')", plan = "#request.getHeader('X-Plan')")
        String plan() {
            return "ok";
        }

        @GetMapping("/resolved")
        @RateLimited(name = "accounts", key = "#request.getHeader('X-User')", planResolver = "accountPlans")
        String resolved() {
            return "ok";
        }
    }
}
