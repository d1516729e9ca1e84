package dev.limiter.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.spring.EnableRateLimiting;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockServletContext;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.util.function.ThrowingConsumer;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * Tests that a rejected call to a Spring MVC controller becomes a 429 problem detail with Retry-After, in a
 * plain Spring MVC application ({@code @EnableWebMvc}, {@link EnableRateLimiting}) declaring the handler.
 */
class RateLimitExceededHandlerTests {

    private final WebContext contextRunner = new WebContext(OrdersController.class);

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

    /** Each test as it read under Spring Boot's runner: with the MockMvc of the started application. */
    private static ThrowingConsumer<MockMvcTester> withMvc(ThrowingConsumer<MockMvcTester> test) {
        return test;
    }

    /** A Spring MVC application of the given beans, started for one test and closed after it. */
    private record WebContext(Class<?>... beans) {

        WebContext withUserConfiguration(Class<?> bean) {
            Class<?>[] more = java.util.Arrays.copyOf(beans, beans.length + 1);
            more[beans.length] = bean;
            return new WebContext(more);
        }

        void run(ThrowingConsumer<MockMvcTester> test) {
            try (AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext()) {
                context.setServletContext(new MockServletContext());
                context.register(WebConfiguration.class);
                context.register(beans);
                context.refresh();
                test.acceptWithException(MockMvcTester.from(context));
            }
            catch (RuntimeException | Error ex) {
                throw ex;
            }
            catch (Exception ex) {
                throw new AssertionError(ex);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    @EnableRateLimiting
    static class WebConfiguration {

        /** A clock that stands still makes Retry-After exact. */
        @Bean
        VirtualClock clock() {
            return new VirtualClock();
        }

        @Bean
        RateLimiterRegistry rateLimiterRegistry(VirtualClock clock) {
            return new RateLimiterRegistry(InMemoryRateLimiterFactory.builder().clock(clock).build());
        }

        @Bean
        RateLimitExceededHandler rateLimitExceededHandler(RateLimiterRegistry registry) {
            return new RateLimitExceededHandler(registry);
        }
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
