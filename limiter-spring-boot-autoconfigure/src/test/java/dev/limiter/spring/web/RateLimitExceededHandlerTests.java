package dev.limiter.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.limiter.RateLimitExceededException;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.web.LimiterWebMvcAutoConfiguration;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.util.function.ThrowingConsumer;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Tests that a rejected call to a Spring MVC controller becomes a 429 problem detail with Retry-After. */
class RateLimitExceededHandlerTests {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterWebMvcAutoConfiguration.class))
        // A clock that stands still makes Retry-After exact.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(OrdersController.class);

    @Test
    void rejectedCallIsTooManyRequestsWithRetryAfterRoundedUp() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/orders")).hasStatusOk().hasBodyTextEqualTo("orders");
            // One permit per 1.2 s: the next one comes in 1.2 s, announced as 2 s.
            assertThat(mvc.get().uri("/orders")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader(HttpHeaders.RETRY_AFTER, "2")
                .hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyJson()
                .hasPathSatisfying("$.status", (status) -> status.assertThat().isEqualTo(429))
                .hasPathSatisfying("$.title", (title) -> title.assertThat().isEqualTo("Too Many Requests"))
                .hasPathSatisfying("$.detail", (detail) -> detail.assertThat().asString().contains("'orders'").contains("2 s"))
                .hasPathSatisfying("$.limiter", (limiter) -> limiter.assertThat().isEqualTo("orders"))
                .hasPathSatisfying("$.limit", (limit) -> limit.assertThat().isEqualTo(1))
                .hasPathSatisfying("$.retryAfter", (retryAfter) -> retryAfter.assertThat().isEqualTo(2));
        }));
    }

    @Test
    void retryAfterBelowOneSecondIsOneSecond() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/quick")).hasStatusOk();
            // One permit per 300 ms.
            assertThat(mvc.get().uri("/quick")).hasStatus(HttpStatus.TOO_MANY_REQUESTS).hasHeader(HttpHeaders.RETRY_AFTER, "1");
        }));
    }

    @Test
    void requestCostingMoreThanTheCapacityIsRejectedWithoutRetryAfter() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/export").param("rows", "6")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .doesNotContainHeader(HttpHeaders.RETRY_AFTER)
                .hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyJson()
                .hasPathSatisfying("$.detail", (detail) -> detail.assertThat().asString().contains("can ever allow"))
                .doesNotHavePath("$.retryAfter");
            // Nothing was taken: a request within the capacity still passes.
            assertThat(mvc.get().uri("/export").param("rows", "5")).hasStatusOk();
        }));
    }

    @Test
    void requestWithoutItsRateLimitKeyIsABadRequest() {
        this.contextRunner.run(withMvc((mvc) -> assertThat(mvc.get().uri("/tenant").header("X-Tenant", ""))
            .hasStatus(HttpStatus.BAD_REQUEST)
            .hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
            .bodyJson()
            .hasPathSatisfying("$.limiter", (limiter) -> limiter.assertThat().isEqualTo("tenants"))));
    }

    @Test
    void applicationExceptionHandlerTakesPrecedence() {
        this.contextRunner.withUserConfiguration(ApplicationAdvice.class).run(withMvc((mvc) -> {
            mvc.get().uri("/orders").exchange();
            assertThat(mvc.get().uri("/orders")).hasStatus(HttpStatus.SERVICE_UNAVAILABLE)
                .hasBodyTextEqualTo("busy: orders")
                .doesNotContainHeader(HttpHeaders.RETRY_AFTER)
                .doesNotContainHeader("RateLimit")
                .doesNotContainHeader("RateLimit-Policy");
        }));
    }

    @Test
    void retryAfterSecondsRoundsUpToWholeSecondsOfAtLeastOne() {
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ZERO)).isEqualTo(1);
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofNanos(1))).isEqualTo(1);
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofMillis(300))).isEqualTo(1);
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofSeconds(1))).isEqualTo(1);
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofSeconds(1).plusNanos(1))).isEqualTo(2);
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofMillis(1200))).isEqualTo(2);
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofMillis(59_999))).isEqualTo(60);
        assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofHours(1))).isEqualTo(3600);
    }

    private static ContextConsumer<AssertableWebApplicationContext> withMvc(ThrowingConsumer<MockMvcTester> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            test.acceptWithException(MockMvcTester.from(context));
        };
    }

    @RestController
    static class OrdersController {

        @GetMapping("/orders")
        @RateLimited(name = "orders", limit = 1, window = "1200ms")
        String orders() {
            return "orders";
        }

        @GetMapping("/quick")
        @RateLimited(name = "quick", limit = 1, window = "300ms")
        String quick() {
            return "quick";
        }

        @GetMapping("/tenant")
        @RateLimited(name = "tenants", key = "#tenant", limit = 5, window = "1m")
        String tenant(@RequestHeader("X-Tenant") String tenant) {
            return "tenant " + tenant;
        }

        @GetMapping("/export")
        @RateLimited(name = "export", limit = 5, window = "1m", cost = "#rows")
        String export(@RequestParam int rows) {
            return "exported " + rows;
        }

    }

    @ControllerAdvice
    static class ApplicationAdvice {

        @ExceptionHandler(RateLimitExceededException.class)
        ResponseEntity<String> busy(RateLimitExceededException ex) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("busy: " + ex.getLimiterName());
        }

    }

}
