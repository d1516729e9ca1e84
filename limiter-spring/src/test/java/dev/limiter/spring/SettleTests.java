package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

import dev.limiter.Algorithm;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * {@code @RateLimited(settle)}: a call reserves its cost, then settles what it actually cost once it has
 * returned, its stage completed or its Mono emitted; above the estimate the key goes into debt, below it
 * gets the rest back. Settling never fails the call: a failing expression is logged and heard by the
 * listeners. A call that throws settles nothing. Bad settle attributes fail startup. On real Redis; that
 * an asynchronous settlement holds no thread while Redis answers is tested in the auto-configuration's
 * SettleOnRedisFailureTests.
 */
@RedisTest
class SettleTests {

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner().onRedis()
        .withBean(VirtualClock.class, VirtualClock::new)
        .withBean("applicationTaskExecutor", Executor.class, () -> Runnable::run)
        .withBean(SettleFailures.class, SettleFailures::new)
        .withUserConfiguration(CompletionsConfiguration.class);

    @Test
    void aCostAboveTheEstimateTakesTheKeyIntoDebtAndOneBelowGivesBack() {
        this.contextRunner.run((context) -> {
            Completions completions = context.getBean(Completions.class);
            RateLimiter tokens = context.getBean(RateLimiterRegistry.class).get("tokens");

            assertThat(completions.complete("alice", 10, 30).usage().totalTokens()).isEqualTo(30);
            assertThat(tokens.quota("alice").remaining()).as("10 reserved, 30 settled").isEqualTo(70);
            completions.complete("alice", 10, 2);
            assertThat(tokens.quota("alice").remaining()).as("10 reserved, 2 settled: 8 back").isEqualTo(68);
            completions.complete("alice", 50, 90);
            assertThat(tokens.quota("alice").remaining()).as("in debt").isZero();
            // 68 - 90 = 22 owed: a call reserving a single token is rejected until the window ends.
            assertThatThrownBy(() -> completions.complete("alice", 1, 1)).isInstanceOf(RateLimitExceededException.class);
            assertThat(context.getBean(SettleFailures.class).failures).isEmpty();
        });
    }

    @Test
    void aFailingSettleExpressionNeverFailsTheCallAndIsHeard() {
        this.contextRunner.run((context) -> {
            Completions completions = context.getBean(Completions.class);
            RateLimiter tokens = context.getBean(RateLimiterRegistry.class).get("tokens");
            // No usage in the answer: #result.usage.totalTokens fails.
            assertThat(completions.complete("bob", 10, -1).text()).isEqualTo("answer");
            assertThat(tokens.quota("bob").remaining()).as("the 10 reserved stay taken").isEqualTo(90);
            assertThat(context.getBean(SettleFailures.class).failures).containsExactly("tokens");
        });
    }

    @Test
    void aCallThatThrowsSettlesNothingUnlessRefundOnGivesBack() {
        this.contextRunner.run((context) -> {
            Completions completions = context.getBean(Completions.class);
            RateLimiter tokens = context.getBean(RateLimiterRegistry.class).get("tokens");
            assertThatThrownBy(() -> completions.failing("carol", 10, new IllegalStateException("no"))).hasMessage("no");
            assertThat(tokens.quota("carol").remaining()).as("reserved, kept").isEqualTo(90);
            assertThatThrownBy(() -> completions.failing("carol", 10, new IOException("down"))).hasMessage("down");
            assertThat(tokens.quota("carol").remaining()).as("refundOn gave the 10 back").isEqualTo(90);
        });
    }

    @Test
    void aCompletionStageSettlesWhenItCompletes() {
        this.contextRunner.run((context) -> {
            Completions completions = context.getBean(Completions.class);
            RateLimiter tokens = context.getBean(RateLimiterRegistry.class).get("tokens-async");
            // Completed later by "the client": the settlement follows the completion.
            CompletableFuture<Answer> pending = new CompletableFuture<>();
            CompletionStage<Answer> stage = completions.completeAsync("dave", 10, pending);
            pending.complete(answer(40));
            assertThat(stage.toCompletableFuture().join().usage().totalTokens()).isEqualTo(40);
            eventually(() -> tokens.quota("dave").remaining(), 60);
            CompletableFuture<Answer> cheap = new CompletableFuture<>();
            CompletionStage<Answer> cheapStage = completions.completeAsync("dave", 10, cheap);
            cheap.complete(answer(0));
            cheapStage.toCompletableFuture().join();
            eventually(() -> tokens.quota("dave").remaining(), 60);
            // A failed stage settles nothing: its 10 stay taken.
            CompletionStage<Answer> failed = completions.completeAsync("dave", 10, CompletableFuture.failedFuture(new IllegalStateException("no")));
            assertThatThrownBy(() -> failed.toCompletableFuture().join()).hasRootCauseMessage("no");
            eventually(() -> tokens.quota("dave").remaining(), 50);
        });
    }

    /**
     * Waits for an asynchronous settlement to show: the stage the caller sees and the settlement both
     * follow the method's stage, in no set order.
     */
    private static void eventually(java.util.function.LongSupplier actual, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (actual.getAsLong() != expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(actual.getAsLong()).isEqualTo(expected);
    }

    @Test
    void aMonoSettlesOnItsValue() {
        this.contextRunner.run((context) -> {
            Completions completions = context.getBean(Completions.class);
            RateLimiter tokens = context.getBean(RateLimiterRegistry.class).get("tokens-reactive");
            StepVerifier.create(completions.completeReactive("erin", 10, 150).map((answer) -> answer.usage().totalTokens()))
                .expectNext(150)
                .verifyComplete();
            eventually(() -> tokens.quota("erin").remaining(), 0);
            StepVerifier.create(completions.completeReactive("erin", 1, 1)).expectError(RateLimitExceededException.class)
                .verify(Duration.ofSeconds(10));
            StepVerifier.create(completions.completeReactive("frank", 30, 5)).expectNextCount(1).verifyComplete();
            eventually(() -> tokens.quota("frank").remaining(), 95);
        });
    }

    @Test
    void settleOnAMethodReturningNothingFailsStartup() {
        this.contextRunner.withUserConfiguration(VoidSettleConfiguration.class).run((context) -> {
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("@RateLimited(settle) on VoidSettle.send(String)")
                .hasMessageContaining("no #result")
                .hasMessageContaining("or remove settle");
        });
    }

    @Test
    void settleOnAFluxFailsStartup() {
        this.contextRunner.withUserConfiguration(FluxSettleConfiguration.class).run((context) -> {
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("@RateLimited(settle) on FluxSettle.stream(String)")
                .hasMessageContaining("emits many values")
                .hasMessageContaining("Return a Mono");
        });
    }

    @Test
    void aSettleExpressionThatIsNoSpelOrNamesAnUnknownVariableFailsStartup() {
        this.contextRunner.withUserConfiguration(BadSettleConfiguration.class).run((context) -> {
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(LimiterConfigurationException.class)
                .hasMessageContaining("@RateLimited(settle) on BadSettle.")
                .hasMessageContaining("#result");
        });
    }

    record Usage(int totalTokens) {
    }

    record Answer(String text, @Nullable Usage usage) {
    }

    static Answer answer(int used) {
        return new Answer("answer", (used >= 0) ? new Usage(used) : null);
    }

    static class SettleFailures implements DecisionListener {

        final List<String> failures = new CopyOnWriteArrayList<>();

        @Override
        public void onDecision(DecisionEvent event) {
        }

        @Override
        public void onSettleFailed(RateLimiter limiter, RuntimeException failure) {
            failures.add(limiter.name());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CompletionsConfiguration {

        @Bean
        Completions completions() {
            return new Completions();
        }
    }

    static class Completions {

        @RateLimited(name = "tokens", key = "#user", cost = "#maxTokens", settle = "#result.usage.totalTokens",
                algorithm = Algorithm.FIXED_WINDOW, limit = 100, window = "1m")
        public Answer complete(String user, int maxTokens, int used) {
            return answer(used);
        }

        @RateLimited(name = "tokens", key = "#user", cost = "#maxTokens", settle = "#result.usage.totalTokens",
                algorithm = Algorithm.FIXED_WINDOW, limit = 100, window = "1m", refundOn = IOException.class)
        public Answer failing(String user, int maxTokens, Exception failure) throws Exception {
            throw failure;
        }

        @RateLimited(name = "tokens-async", key = "#user", cost = "#maxTokens", settle = "#result.usage.totalTokens",
                algorithm = Algorithm.TOKEN_BUCKET, limit = 100, window = "1h")
        public CompletionStage<Answer> completeAsync(String user, int maxTokens, CompletableFuture<Answer> answer) {
            return answer;
        }

        @RateLimited(name = "tokens-reactive", key = "#user", cost = "#maxTokens", settle = "#result.usage.totalTokens",
                algorithm = Algorithm.GCRA, limit = 100, window = "1h")
        public Mono<Answer> completeReactive(String user, int maxTokens, int used) {
            return Mono.fromSupplier(() -> answer(used)).subscribeOn(Schedulers.parallel());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class VoidSettleConfiguration {

        @Bean
        VoidSettle voidSettle() {
            return new VoidSettle();
        }
    }

    static class VoidSettle {

        @RateLimited(name = "void-settle", key = "#user", settle = "#result", algorithm = Algorithm.FIXED_WINDOW, limit = 1, window = "1m")
        public void send(String user) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FluxSettleConfiguration {

        @Bean
        FluxSettle fluxSettle() {
            return new FluxSettle();
        }
    }

    static class FluxSettle {

        @RateLimited(name = "flux-settle", key = "#user", settle = "#result.length()", algorithm = Algorithm.FIXED_WINDOW, limit = 1,
                window = "1m")
        public Flux<String> stream(String user) {
            return Flux.just("a");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadSettleConfiguration {

        @Bean
        BadSettle badSettle() {
            return new BadSettle();
        }
    }

    static class BadSettle {

        @RateLimited(name = "bad-settle", key = "#user", settle = "#answer.tokens", algorithm = Algorithm.FIXED_WINDOW, limit = 1,
                window = "1m")
        public String unknown(String user) {
            return user;
        }
    }
}
