package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.RateLimitExceededException;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * {@code @RateLimited} naming a concurrency limiter: each call holds a slot while it runs, and gives it
 * back when it returns or throws, when its CompletionStage completes, and when its Mono or Flux
 * completes, fails or is cancelled.
 */
@Timeout(60)
class ConcurrencyInterceptionTests {

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner().withUserConfiguration(CallsConfiguration.class);

    @Test
    void aBlockingCallHoldsItsSlotUntilItReturnsOrThrows() {
        this.contextRunner.run((context) -> {
            Upstream upstream = context.getBean(Upstream.class);
            ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
            CountDownLatch inside = new CountDownLatch(2);
            CountDownLatch leave = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(2);
            Future<?> first = threads.submit(() -> upstream.call("acme", inside, leave));
            Future<?> second = threads.submit(() -> upstream.call("acme", inside, leave));
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(limiter.inUse()).isEqualTo(2);
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> upstream.call("acme", null, null))
                .satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("upstream"));
            assertThat(upstream.call("other", null, null)).as("another key").isEqualTo("other");
            leave.countDown();
            first.get(10, TimeUnit.SECONDS);
            second.get(10, TimeUnit.SECONDS);
            threads.shutdown();
            assertThat(limiter.inUse()).isZero();
            assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> upstream.fail("acme"));
            assertThat(limiter.inUse()).as("released by a call that threw").isZero();
        });
    }

    @Test
    void aCompletionStageHoldsItsSlotUntilItCompletes() {
        this.contextRunner.run((context) -> {
            Upstream upstream = context.getBean(Upstream.class);
            ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
            CompletableFuture<String> one = new CompletableFuture<>();
            CompletableFuture<String> two = new CompletableFuture<>();
            CompletableFuture<String> first = upstream.later("acme", one);
            upstream.later("acme", two);
            assertThat(limiter.inUse()).isEqualTo(2);
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> upstream.later("acme", new CompletableFuture<>()));
            one.complete("done");
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(limiter.inUse()).isEqualTo(1);
            two.completeExceptionally(new IllegalStateException("upstream failed"));
            assertThat(limiter.inUse()).isZero();
        });
    }

    @Test
    void aMonoOrFluxHoldsItsSlotPerSubscriptionUntilItEndsOrIsCancelled() {
        this.contextRunner.run((context) -> {
            Upstream upstream = context.getBean(Upstream.class);
            ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
            Sinks.One<String> answer = Sinks.one();
            Mono<String> pending = upstream.reactive("acme", answer.asMono());
            assertThat(limiter.inUse()).as("nothing taken before subscription").isZero();
            StepVerifier.create(pending).then(() -> {
                await(() -> limiter.inUse() == 1);
                answer.tryEmitValue("answer");
            }).expectNext("answer").verifyComplete();
            assertThat(limiter.inUse()).isZero();

            Disposable first = upstream.reactive("acme", Mono.never()).subscribe();
            Disposable second = upstream.stream("acme", Flux.never()).subscribe();
            await(() -> limiter.inUse() == 2);
            StepVerifier.create(upstream.reactive("acme", Mono.just("x"))).expectError(RateLimitExceededException.class)
                .verify(Duration.ofSeconds(10));
            first.dispose();
            second.dispose();
            await(() -> limiter.inUse() == 0);
            StepVerifier.create(upstream.stream("acme", Flux.error(new IllegalStateException("failed")))).expectError(IllegalStateException.class)
                .verify(Duration.ofSeconds(10));
            await(() -> limiter.inUse() == 0);
            StepVerifier.create(upstream.stream("acme", Flux.just("a", "b"))).expectNext("a", "b").verifyComplete();
            assertThat(limiter.inUse()).isZero();
        });
    }

    @Test
    void attributesAConcurrencyLimitCannotHonourAreRejectedAtStartup() {
        this.contextRunner.withUserConfiguration(Costly.class).run((context) -> {
            Throwable failure = context.getStartupFailure();
            while (failure.getCause() != null && !(failure instanceof LimiterConfigurationException)) {
                failure = failure.getCause();
            }
            assertThat(failure).isInstanceOf(LimiterConfigurationException.class).hasMessageContaining("@RateLimited(cost)")
                .hasMessageContaining("concurrency limit");
        });
    }

    @Test
    void rateLimitValuesOnAMethodNamingAConcurrencyLimitAreRejectedAtStartup() {
        this.contextRunner.withUserConfiguration(Windowed.class).run((context) -> {
            Throwable failure = context.getStartupFailure();
            while (failure.getCause() != null && !(failure instanceof LimiterConfigurationException)) {
                failure = failure.getCause();
            }
            assertThat(failure).isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("@RateLimited(limit, window, burst, limits, subWindows or maxWait)");
        });
    }

    @Test
    void settleOnAMethodNamingAConcurrencyLimitIsRejectedAtStartup() {
        this.contextRunner.withUserConfiguration(Settled.class).run((context) -> {
            Throwable failure = context.getStartupFailure();
            while (failure.getCause() != null && !(failure instanceof LimiterConfigurationException)) {
                failure = failure.getCause();
            }
            assertThat(failure).isInstanceOf(LimiterConfigurationException.class).hasMessageContaining("@RateLimited(settle)")
                .hasMessageContaining("concurrency limit");
        });
    }

        private static void await(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("in time").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CallsConfiguration {

        @Bean
        ConcurrencyLimiter upstreamLimiter() {
            return new InMemoryRateLimiterFactory().createConcurrencyLimiter("upstream", ConcurrencyLimiterConfig.of(2));
        }

        @Bean
        Upstream upstream() {
            return new Upstream();
        }
    }

    static class Upstream {

        final AtomicInteger calls = new AtomicInteger();

        @RateLimited(name = "upstream", key = "#customer")
        public String call(String customer, CountDownLatch inside, CountDownLatch leave) {
            calls.incrementAndGet();
            if (inside != null) {
                inside.countDown();
                try {
                    leave.await(10, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return customer;
        }

        @RateLimited(name = "upstream", key = "#customer")
        public String fail(String customer) {
            throw new IllegalStateException("upstream failed");
        }

        @RateLimited(name = "upstream", key = "#customer")
        public CompletableFuture<String> later(String customer, CompletableFuture<String> answer) {
            return answer;
        }

        @RateLimited(name = "upstream", key = "#customer")
        public Mono<String> reactive(String customer, Mono<String> answer) {
            return answer;
        }

        @RateLimited(name = "upstream", key = "#customer")
        public Flux<String> stream(String customer, Flux<String> answer) {
            return answer;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Costly {

        @Bean
        CostlyCalls costlyCalls() {
            return new CostlyCalls();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Windowed {

        @Bean
        WindowedCalls windowedCalls() {
            return new WindowedCalls();
        }
    }

    static class WindowedCalls {

        @RateLimited(name = "upstream", limit = 5, window = "1s")
        public String call() {
            return "x";
        }
    }

    static class CostlyCalls {

        @RateLimited(name = "upstream", cost = "#n")
        public String call(int n) {
            return "x";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Settled {

        @Bean
        SettledCalls settledCalls() {
            return new SettledCalls();
        }
    }

    static class SettledCalls {

        @RateLimited(name = "upstream", settle = "#result.length()")
        public String call() {
            return "x";
        }
    }
}
