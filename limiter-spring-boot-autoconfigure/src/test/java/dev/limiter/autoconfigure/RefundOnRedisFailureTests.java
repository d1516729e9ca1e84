package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.limiter.Algorithm;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@code @RateLimited(refundOn)} while Redis fails, with Spring Boot's Redis and failure-policy properties: a
 * refund that fails never hides the call's own exception. The rest of refundOn is tested in limiter-spring.
 */
@RedisTest
class RefundOnRedisFailureTests {

    @Test
    void aRefundThatFailsNeverHidesTheCallsOwnException() {
        try (TestRedis redis = TestRedis.start()) {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=refund-" + UUID.randomUUID(),
                        "limiter.redis.timeout=200ms", "limiter.on-redis-failure=allow")
                .withBean("applicationTaskExecutor", Executor.class, () -> Runnable::run)
                .withUserConfiguration(DownstreamConfiguration.class)
                .run((context) -> {
                    Downstream downstream = context.getBean(Downstream.class);
                    IOException unavailable = new IOException("down");
                    assertThat(downstream.call("frank", 1, null)).isEqualTo("ok");
                    redis.kill();
                    // Admitted by the failure policy; the refund fails in turn (Redis failing, then unavailable).
                    assertThatThrownBy(() -> downstream.call("frank", 1, unavailable)).isSameAs(unavailable);
                    assertThatThrownBy(() -> downstream.call("frank", 1, unavailable)).isSameAs(unavailable);
                    CompletableFuture<String> failed = downstream.callAsync("frank", unavailable).toCompletableFuture();
                    assertThatThrownBy(failed::get).cause().isSameAs(unavailable);
                    StepVerifier.create(downstream.callReactive("frank", unavailable))
                        .expectErrorSatisfies((ex) -> assertThat(ex).isSameAs(unavailable))
                        .verify(Duration.ofSeconds(10));
                });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class DownstreamConfiguration {

        @Bean
        Downstream downstream() {
            return new Downstream();
        }

    }

    static class Downstream {

        @RateLimited(name = "downstream", key = "#user", cost = "#permits", algorithm = Algorithm.FIXED_WINDOW, limit = 3, window = "1m",
                refundOn = IOException.class)
        public String call(String user, int permits, @Nullable Exception failure) throws Exception {
            if (failure != null) {
                throw failure;
            }
            return "ok";
        }

        @RateLimited(name = "strict", key = "#user", algorithm = Algorithm.FIXED_WINDOW, limit = 2, window = "1m",
                refundOn = RuntimeException.class)
        public void anything(String user) {
        }

        @RateLimited(name = "shadowed", key = "#user", algorithm = Algorithm.FIXED_WINDOW, limit = 1, window = "1m", shadow = true,
                refundOn = IOException.class)
        public void shadowed(String user, @Nullable IOException failure) throws IOException {
            if (failure != null) {
                throw failure;
            }
        }

        @RateLimited(name = "downstream-async", key = "#user", algorithm = Algorithm.GCRA, limit = 2, window = "1m",
                refundOn = IOException.class)
        public CompletableFuture<String> callAsync(String user, @Nullable Exception failure) {
            return (failure != null) ? CompletableFuture.failedFuture(failure) : CompletableFuture.completedFuture("ok");
        }

        @RateLimited(name = "downstream-reactive", key = "#user", algorithm = Algorithm.SLIDING_LOG, limit = 2, window = "1m",
                refundOn = IOException.class)
        public Mono<String> callReactive(String user, @Nullable Exception failure) {
            return (failure != null) ? Mono.error(failure) : Mono.just("ok");
        }

        @RateLimited(name = "downstream-reactive", key = "#user", algorithm = Algorithm.SLIDING_LOG, limit = 2, window = "1m",
                refundOn = IOException.class)
        public Flux<String> stream(String user, @Nullable Exception failure) {
            return (failure != null) ? Flux.concat(Flux.just("first"), Flux.error(failure)) : Flux.just("first", "second");
        }

    }

}
