package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.RateLimiter;
import dev.limiter.SettleFailedException;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@code @RateLimited(settle)} while Redis fails, with Spring Boot's Redis and failure-policy properties:
 * the settlement fails, and the call answers all the same, plain, {@code CompletionStage} or {@code Mono};
 * each failure is heard by the listeners. The rest of settle is tested in limiter-spring.
 */
@RedisTest
class SettleOnRedisFailureTests {

    @Test
    void aSettlementThatFailsNeverFailsTheCall() {
        try (TestRedis redis = TestRedis.start()) {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=settle-" + UUID.randomUUID(),
                        "limiter.redis.timeout=200ms", "limiter.on-redis-failure=allow")
                .withBean("applicationTaskExecutor", Executor.class, () -> Runnable::run)
                .withBean(SettleFailures.class, SettleFailures::new)
                .withUserConfiguration(TokensConfiguration.class)
                .run((context) -> {
                    Tokens tokens = context.getBean(Tokens.class);
                    SettleFailures failures = context.getBean(SettleFailures.class);
                    assertThat(tokens.use("frank", 7)).isEqualTo(7);
                    assertThat(failures.failures).isEmpty();
                    redis.kill();
                    // Admitted by the failure policy; the settlement fails (Redis failing, then unavailable).
                    assertThat(tokens.use("frank", 9)).isEqualTo(9);
                    assertThat(tokens.useAsync("frank", 9).toCompletableFuture().join()).isEqualTo(9);
                    StepVerifier.create(tokens.useReactive("frank", 9)).expectNext(9).verifyComplete();
                    // The asynchronous ones fail as they are sent, or as Lettuce rejects them on its own thread.
                    failures.await(3);
                    assertThat(failures.failures).hasSize(3).allMatch((failure) -> failure instanceof SettleFailedException);
                });
        }
    }

    /**
     * A {@code CompletionStage} or {@code Mono} settles without holding the thread that completed it, which
     * may be an event loop, and without the application's executor: the settlement goes out through the
     * reactive API. Redis is paused once the call is decided; the thread completing the call gets it back
     * while the settlement still waits for Redis (a settlement sent blocking would have timed out and
     * been heard by then), and the settlement is heard failing once its timeout is up.
     */
    @Test
    void anAsynchronousSettlementHoldsNoThreadWhileRedisDoesNotAnswer() {
        try (TestRedis redis = TestRedis.start()) {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may pause");
            AtomicInteger executed = new AtomicInteger();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
                    .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=settle-" + UUID.randomUUID(),
                            "limiter.redis.timeout=1s", "limiter.on-redis-failure=allow")
                    .withBean("applicationTaskExecutor", Executor.class, () -> (task) -> {
                        executed.incrementAndGet();
                        pool.execute(task);
                    })
                    .withBean(SettleFailures.class, SettleFailures::new)
                    .withUserConfiguration(TokensConfiguration.class)
                    .run((context) -> {
                        Tokens tokens = context.getBean(Tokens.class);
                        SettleFailures failures = context.getBean(SettleFailures.class);

                        CompletableFuture<Integer> answer = new CompletableFuture<>();
                        CountDownLatch invoked = new CountDownLatch(1);
                        CompletionStage<Integer> stage = tokens.useLater("grace", answer, invoked);
                        // Decided (a decision that completes later goes on, on the executor, to call the method).
                        assertThat(invoked.await(10, TimeUnit.SECONDS)).isTrue();
                        int before = executed.get();
                        redis.pause();
                        try {
                            answer.complete(9);
                            assertThat(failures.failures).as("the completing thread sent the settlement and went on").isEmpty();
                            assertThat(stage.toCompletableFuture()).isCompletedWithValue(9);
                            failures.await(1);
                        }
                        finally {
                            redis.resume();
                        }

                        CompletableFuture<Integer> value = new CompletableFuture<>();
                        CountDownLatch subscribed = new CountDownLatch(1);
                        List<Integer> received = new CopyOnWriteArrayList<>();
                        tokens.useReactiveLater("heidi", value, subscribed).subscribe(received::add);
                        assertThat(subscribed.await(10, TimeUnit.SECONDS)).as("decided, the Mono waits for its value").isTrue();
                        redis.pause();
                        try {
                            value.complete(9);
                            assertThat(received).containsExactly(9);
                            assertThat(failures.failures).as("the thread emitting sent the settlement and went on").hasSize(1);
                            failures.await(2);
                        }
                        finally {
                            redis.resume();
                        }
                        assertThat(failures.failures).allMatch((failure) -> failure instanceof SettleFailedException);
                        assertThat(executed).as("no settlement ran on the application's executor").hasValue(before);
                    });
            }
            finally {
                pool.shutdownNow();
            }
        }
    }

    static class SettleFailures implements DecisionListener {

        final List<RuntimeException> failures = new CopyOnWriteArrayList<>();

        /** Waits until {@code count} failures are heard, or ten seconds. */
        void await(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (failures.size() < count && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(failures).hasSizeGreaterThanOrEqualTo(count);
        }

        @Override
        public void onDecision(DecisionEvent event) {
        }

        @Override
        public void onSettleFailed(RateLimiter limiter, RuntimeException failure) {
            failures.add(failure);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TokensConfiguration {

        @Bean
        Tokens tokens() {
            return new Tokens();
        }
    }

    static class Tokens {

        @RateLimited(name = "tokens", key = "#user", cost = "5", settle = "#result", algorithm = Algorithm.TOKEN_BUCKET, limit = 100,
                window = "1m")
        public int use(String user, int used) {
            return used;
        }

        @RateLimited(name = "tokens", key = "#user", cost = "5", settle = "#result", algorithm = Algorithm.TOKEN_BUCKET, limit = 100,
                window = "1m")
        public CompletableFuture<Integer> useAsync(String user, int used) {
            return CompletableFuture.completedFuture(used);
        }

        @RateLimited(name = "tokens", key = "#user", cost = "5", settle = "#result", algorithm = Algorithm.TOKEN_BUCKET, limit = 100,
                window = "1m")
        public Mono<Integer> useReactive(String user, int used) {
            return Mono.just(used).delayElement(Duration.ofMillis(1));
        }

        @RateLimited(name = "tokens", key = "#user", cost = "5", settle = "#result", algorithm = Algorithm.TOKEN_BUCKET, limit = 100,
                window = "1m")
        public CompletionStage<Integer> useLater(String user, CompletableFuture<Integer> used, CountDownLatch invoked) {
            invoked.countDown();
            return used;
        }

        @RateLimited(name = "tokens", key = "#user", cost = "5", settle = "#result", algorithm = Algorithm.TOKEN_BUCKET, limit = 100,
                window = "1m")
        public Mono<Integer> useReactiveLater(String user, CompletableFuture<Integer> used, CountDownLatch subscribed) {
            return Mono.fromFuture(used).doOnSubscribe((subscription) -> subscribed.countDown());
        }
    }
}
