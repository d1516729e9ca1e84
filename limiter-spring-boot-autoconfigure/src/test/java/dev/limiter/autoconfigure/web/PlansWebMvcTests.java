package dev.limiter.autoconfigure.web;

import java.util.Map;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Plans over HTTP in Spring MVC, on Redis: the cases shared with WebFlux ({@link PlansCases}). MockMvc
 * hands an unhandled exception back, where a servlet container answers it with 500: an unknown
 * plan's is checked as well.
 */
@RedisTest
@Timeout(60)
class PlansWebMvcTests extends PlansCases {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withPropertyValues(PLANS)
        // Time stands still: what a test takes stays taken.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean("accountPlans", PlanResolver.class, () -> (call, key) -> {
            HttpServletRequest request = (HttpServletRequest) call.request();
            return Map.of("alice", "free", "carol", "pro").get(request.getHeader("X-User"));
        })
        .withUserConfiguration(PlannedController.class);

    @Override
    Application application() {
        return WebStack.mvc(this.contextRunner);
    }

    @Override
    String planExpression() {
        return "#request.getHeader('X-Plan')";
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
