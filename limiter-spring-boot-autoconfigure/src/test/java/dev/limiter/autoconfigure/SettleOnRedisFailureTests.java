package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

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
                    assertThat(failures.failures).hasSize(3).allMatch((failure) -> failure instanceof SettleFailedException);
                });
        }
    }

    static class SettleFailures implements DecisionListener {

        final List<RuntimeException> failures = new CopyOnWriteArrayList<>();

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
    }
}
