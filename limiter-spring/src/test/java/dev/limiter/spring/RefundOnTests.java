package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

import dev.limiter.Algorithm;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@code @RateLimited(refundOn)}: a call failing with one of those exceptions gives back the permits it
 * took, whatever it returns (a plain value, a {@code CompletionStage}, a {@code Mono} or {@code Flux});
 * its exception reaches the caller unchanged, also when the refund fails; a call that took nothing
 * (rejected, also in shadow mode) gives nothing back. On real Redis; the application's executor runs
 * the asynchronous refunds on the thread that signals, so each is done when the call's failure is seen.
 */
@RedisTest
class RefundOnTests {

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner().onRedis()
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean("applicationTaskExecutor", Executor.class, () -> Runnable::run)
        .withUserConfiguration(DownstreamConfiguration.class);

    @Test
    void aFailureNamedInRefundOnGivesThePermitsBackAndIsThrownUnchanged() {
        this.contextRunner.run((context) -> {
            Downstream downstream = context.getBean(Downstream.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            IOException unavailable = new FileNotFoundException("downstream is down");

            assertThatThrownBy(() -> downstream.call("alice", 2, unavailable)).as("a subclass of IOException").isSameAs(unavailable);
            assertThat(registry.get("downstream").quota("alice").remaining()).as("both permits back").isEqualTo(3);

            IllegalArgumentException bug = new IllegalArgumentException("not ours to refund");
            assertThatThrownBy(() -> downstream.call("alice", 2, bug)).isSameAs(bug);
            assertThat(registry.get("downstream").quota("alice").remaining()).as("kept: not named in refundOn").isEqualTo(1);

            assertThat(downstream.call("alice", 1, null)).isEqualTo("ok");
            assertThat(registry.get("downstream").quota("alice").remaining()).isZero();
        });
    }

    @Test
    void aRejectedCallTookNothingAndGivesNothingBack() {
        this.contextRunner.run((context) -> {
            Downstream downstream = context.getBean(Downstream.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            downstream.anything("bob");
            downstream.anything("bob");
            // refundOn names RuntimeException, which a rejection is: still nothing goes back.
            assertThatThrownBy(() -> downstream.anything("bob")).isInstanceOf(RateLimitExceededException.class);
            assertThat(registry.get("strict").quota("bob").remaining()).isZero();
        });
    }

    @Test
    void aShadowLimiterGetsBackWhatItAdmittedButNotWhatItRejected() {
        this.contextRunner.run((context) -> {
            Downstream downstream = context.getBean(Downstream.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            IOException unavailable = new IOException("down");
            assertThatThrownBy(() -> downstream.shadowed("carol", unavailable)).isSameAs(unavailable);
            assertThat(registry.get("shadowed").quota("carol").remaining()).as("admitted, then given back").isEqualTo(1);

            downstream.shadowed("carol", null);
            assertThatThrownBy(() -> downstream.shadowed("carol", unavailable)).as("rejected, proceeding in shadow mode")
                .isSameAs(unavailable);
            assertThat(registry.get("shadowed").quota("carol").remaining()).as("it took nothing to give back").isZero();
        });
    }

    @Test
    void aFailedStageGivesThePermitsBack() {
        this.contextRunner.run((context) -> {
            Downstream downstream = context.getBean(Downstream.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            IOException unavailable = new IOException("down");

            CompletableFuture<String> failed = downstream.callAsync("dave", unavailable).toCompletableFuture();

            assertThatThrownBy(failed::get).isInstanceOf(ExecutionException.class).cause().isSameAs(unavailable);
            assertThat(registry.get("downstream-async").quota("dave").remaining()).isEqualTo(2);
            assertThat(downstream.callAsync("dave", null).toCompletableFuture().join()).isEqualTo("ok");
            assertThat(registry.get("downstream-async").quota("dave").remaining()).isEqualTo(1);
        });
    }

    @Test
    void anErrorSignalGivesTheSubscriptionsPermitsBack() {
        this.contextRunner.run((context) -> {
            Downstream downstream = context.getBean(Downstream.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            IOException unavailable = new IOException("down");

            StepVerifier.create(downstream.callReactive("erin", unavailable)).expectErrorSatisfies((ex) -> assertThat(ex).isSameAs(unavailable))
                .verify(Duration.ofSeconds(10));
            assertThat(registry.get("downstream-reactive").quota("erin").remaining()).isEqualTo(2);

            StepVerifier.create(downstream.stream("erin", unavailable)).expectNext("first").expectErrorSatisfies((ex) -> assertThat(ex).isSameAs(unavailable))
                .verify(Duration.ofSeconds(10));
            assertThat(registry.get("downstream-reactive").quota("erin").remaining()).as("after some values too").isEqualTo(2);

            StepVerifier.create(downstream.callReactive("erin", null)).expectNext("ok").verifyComplete();
            assertThat(registry.get("downstream-reactive").quota("erin").remaining()).isEqualTo(1);
        });
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
