package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Spring MVC endpoints returning a {@code Mono} or a {@code CompletableFuture}, decided on another
 * thread than the request's: their responses carry the RateLimit header fields all the same, and
 * rejections are 429.
 */
@RedisTest
@Timeout(60)
class AsyncWebMvcTests {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
                DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + TestRedis.shared().url(), "limiter.key-prefix=mvc-async-" + UUID.randomUUID(),
                "limiter.redis.timeout=5s")
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(AsyncController.class);

    @Test
    void monoEndpointCarriesTheFieldsAndIsRejectedWith429() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvcTester mvc = MockMvcTester.from(context);
            assertThat(mvc.get().uri("/mono")).hasStatusOk()
                .hasBodyTextEqualTo("mono")
                .hasHeader("RateLimit-Policy", "\"mono\";q=1;w=60")
                .hasHeader("RateLimit", "\"mono\";r=0;t=60");
            assertThat(mvc.get().uri("/mono")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader(HttpHeaders.RETRY_AFTER, "60")
                .hasHeader("RateLimit", "\"mono\";r=0;t=60");
        });
    }

    @Test
    void completableFutureEndpointCarriesTheFieldsAndIsRejectedWith429() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvcTester mvc = MockMvcTester.from(context);
            assertThat(mvc.get().uri("/future")).hasStatusOk()
                .hasBodyTextEqualTo("future")
                .hasHeader("RateLimit", "\"future\";r=0;t=60");
            assertThat(mvc.get().uri("/future")).hasStatus(HttpStatus.TOO_MANY_REQUESTS).hasHeader(HttpHeaders.RETRY_AFTER, "60");
        });
    }

    @RestController
    static class AsyncController {

        @GetMapping("/mono")
        @RateLimited(name = "mono", limit = 1, window = "1m")
        Mono<String> mono() {
            return Mono.just("mono");
        }

        @GetMapping("/future")
        @RateLimited(name = "future", limit = 1, window = "1m")
        CompletableFuture<String> future() {
            return CompletableFuture.completedFuture("future");
        }

    }

}
