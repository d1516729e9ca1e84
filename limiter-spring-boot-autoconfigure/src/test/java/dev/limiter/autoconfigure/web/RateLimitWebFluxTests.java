package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.limiter.RateLimitExceededException;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Limited WebFlux endpoints over HTTP, on Redis through its reactive API: allowed responses carry
 * the RateLimit header fields, rejected ones are 429 with Retry-After and a problem detail, as in
 * Spring MVC; the property turns the fields off and the application's own handlers win.
 */
@RedisTest
@Timeout(60)
class RateLimitWebFluxTests {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + TestRedis.shared().url(), "limiter.key-prefix=webflux-" + UUID.randomUUID(),
                "limiter.redis.timeout=5s")
        // A clock that stands still makes the fields and Retry-After exact.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(QuotesController.class);

    @Test
    void allowedMonoResponseCarriesPolicyAndQuota() {
        this.contextRunner.run(withClient((client) -> {
            // Token bucket of 2 per 10 s: one permit taken, back in 5 s.
            client.get().uri("/quote").header("X-User", "alice").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit-Policy", "\"quotes\";q=2;w=10")
                .expectHeader().valueEquals("RateLimit", "\"quotes\";r=1;t=5")
                .expectBody(String.class).isEqualTo("quote for alice");
            client.get().uri("/quote").header("X-User", "alice").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit", "\"quotes\";r=0;t=10");
        }));
    }

    @Test
    void rejectedMonoIsTooManyRequestsWithRetryAfterFieldsAndProblemDetail() {
        this.contextRunner.run(withClient((client) -> {
            client.get().uri("/slow").exchange().expectStatus().isOk();
            // 60 per 90 s, burst 1: the next permit comes in 1.5 s, announced as 2 s.
            client.get().uri("/slow").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "2")
                .expectHeader().valueEquals("RateLimit-Policy", "\"slow\";q=1;w=2")
                .expectHeader().valueEquals("RateLimit", "\"slow\";r=0;t=2")
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.status").isEqualTo(429)
                .jsonPath("$.title").isEqualTo("Too Many Requests")
                .jsonPath("$.limiter").isEqualTo("slow")
                .jsonPath("$.limit").isEqualTo(1)
                .jsonPath("$.retryAfter").isEqualTo(2)
                .jsonPath("$.violatedLimit").isEqualTo("60/90s")
                .jsonPath("$.detail").value((detail) -> assertThat(detail.toString()).contains("'slow'").contains("2 s"));
        }));
    }

    @Test
    void fluxIsLimitedBeforeItsFirstElement() {
        this.contextRunner.run(withClient((client) -> {
            client.get().uri("/ticks").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit", "\"ticks\";r=0;t=60")
                .expectBody().jsonPath("$.length()").isEqualTo(3);
            client.get().uri("/ticks").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "60")
                .expectBody().jsonPath("$.limiter").isEqualTo("ticks");
        }));
    }

    @Test
    void completionStageEndpointIsRejectedTheSameWay() {
        this.contextRunner.run(withClient((client) -> {
            client.get().uri("/report").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("report");
            client.get().uri("/report").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals("RateLimit", "\"reports\";r=0;t=60")
                .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "60");
        }));
    }

    @Test
    void fallbackResponseReportsTheExhaustedQuota() {
        this.contextRunner.run(withClient((client) -> {
            client.get().uri("/cached").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("fresh");
            client.get().uri("/cached").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit", "\"cached\";r=0;t=60")
                .expectBody(String.class).isEqualTo("from cache");
        }));
    }

    @Test
    void shadowLimiterLetsTheCallThroughAndAnnouncesNothing() {
        this.contextRunner.run(withClient((client) -> {
            client.get().uri("/shadow").exchange()
                .expectStatus().isOk()
                .expectHeader().doesNotExist("RateLimit")
                .expectHeader().doesNotExist("RateLimit-Policy");
            client.get().uri("/shadow").exchange()
                .expectStatus().isOk()
                .expectHeader().doesNotExist("RateLimit")
                .expectHeader().doesNotExist("RateLimit-Policy")
                .expectHeader().doesNotExist(HttpHeaders.RETRY_AFTER)
                .expectBody(String.class).isEqualTo("shadow");
        }));
    }

    @Test
    void requestWithoutItsRateLimitKeyIsABadRequest() {
        this.contextRunner.run(withClient((client) -> client.get().uri("/quote").header("X-User", "").exchange()
            .expectStatus().isBadRequest()
            .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
            .expectBody().jsonPath("$.limiter").isEqualTo("quotes")));
    }

    @Test
    void disabledPropertyLeavesTheFieldsOutButKeepsRetryAfter() {
        this.contextRunner.withPropertyValues("limiter.headers.enabled=false").run(withClient((client) -> {
            client.get().uri("/slow").exchange()
                .expectStatus().isOk()
                .expectHeader().doesNotExist("RateLimit")
                .expectHeader().doesNotExist("RateLimit-Policy");
            client.get().uri("/slow").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().doesNotExist("RateLimit")
                .expectHeader().doesNotExist("RateLimit-Policy")
                .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "2");
        }));
    }

    @Test
    void applicationExceptionHandlerTakesPrecedence() {
        this.contextRunner.withUserConfiguration(ApplicationAdvice.class).run(withClient((client) -> {
            client.get().uri("/slow").exchange().expectStatus().isOk();
            client.get().uri("/slow").exchange()
                .expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectHeader().doesNotExist(HttpHeaders.RETRY_AFTER)
                .expectHeader().doesNotExist("RateLimit")
                .expectBody(String.class).isEqualTo("busy: slow");
        }));
    }

    private static ContextConsumer<AssertableReactiveWebApplicationContext> withClient(Consumer<WebTestClient> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            test.accept(WebTestClient.bindToApplicationContext(context).build());
        };
    }

    @RestController
    static class QuotesController {

        @GetMapping("/quote")
        @RateLimited(name = "quotes", key = "#user", limit = 2, window = "10s")
        Mono<String> quote(@RequestHeader("X-User") String user) {
            return Mono.fromSupplier(() -> "quote for " + user);
        }

        @GetMapping("/slow")
        @RateLimited(name = "slow", limit = 60, window = "90s", burst = 1)
        Mono<String> slow() {
            return Mono.just("slow");
        }

        @GetMapping("/ticks")
        @RateLimited(name = "ticks", limit = 1, window = "1m")
        Flux<Integer> ticks() {
            return Flux.just(1, 2, 3);
        }

        @GetMapping("/report")
        @RateLimited(name = "reports", limit = 1, window = "1m")
        CompletableFuture<String> report() {
            return CompletableFuture.completedFuture("report");
        }

        @GetMapping("/cached")
        @RateLimited(name = "cached", limit = 1, window = "1m", fallbackMethod = "fromCache")
        Mono<String> cached() {
            return Mono.just("fresh");
        }

        Mono<String> fromCache() {
            return Mono.just("from cache");
        }

        @GetMapping("/shadow")
        @RateLimited(name = "shadow", limit = 1, window = "1m", shadow = true)
        Mono<String> shadow() {
            return Mono.just("shadow");
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
