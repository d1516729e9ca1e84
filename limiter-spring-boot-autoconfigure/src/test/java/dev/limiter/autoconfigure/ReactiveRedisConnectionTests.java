package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The limiters' own connection serves asynchronous decisions through the reactive API, bounded by
 * {@code limiter.redis.timeout} like blocking ones, whatever the application's client options.
 */
@RedisTest
@Timeout(60)
class ReactiveRedisConnectionTests {

    private TestRedis redis;

    private boolean paused;

    @BeforeEach
    void startPrivateRedis() {
        this.redis = TestRedis.start();
        Assumptions.assumeTrue(this.redis.source() != TestRedis.Source.URL, "needs a Redis the test may freeze");
    }

    @AfterEach
    void stopPrivateRedis() {
        if (this.paused) {
            this.redis.resume();
        }
        if (this.redis != null) {
            this.redis.close();
        }
    }

    private ApplicationContextRunner contextRunner() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=" + this.redis.url(), "limiter.key-prefix=reactive-" + UUID.randomUUID(),
                    "limiter.redis.timeout=200ms", "limiter.redis.probe-interval=50ms", "limiter.on-redis-failure=allow");
    }

    /** The decision, waited for at most 10 s: a stage left pending by a frozen Redis fails the test instead of hanging it. */
    private static Decision decided(CompletionStage<Decision> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A loaded machine may take longer than the timeout to connect at startup: then the probe connects soon after. */
    private static void awaitRedis(RedisRateLimiterFactory factory) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!factory.isRedisAvailable() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(factory.isRedisAvailable()).isTrue();
    }

    @Test
    void asynchronousDecisionsDoNotWaitForRedis() {
        contextRunner().run((context) -> {
            awaitRedis(context.getBean(RedisRateLimiterFactory.class));
            RateLimiter limiter = context.getBean(RateLimiterRegistry.class)
                .register("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofMinutes(1)));
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
            this.redis.pause();
            this.paused = true;
            CompletableFuture<Decision> pending = limiter.tryAcquireAsync("k").toCompletableFuture();
            // Redis is frozen: had the call waited for it, the policy's decision would be there now.
            assertThat(pending).isNotDone();
            assertThat(decided(pending).allowed()).as("allowed by the failure policy after the timeout").isTrue();
            assertThat(context.getBean(RedisRateLimiterFactory.class).isRedisAvailable()).as("one slow call is no outage").isTrue();
        });
    }

    /** An application's own factory whose client options turn Lettuce's own command timeout off. */
    @Test
    void reactiveCommandsTimeOutEvenWhenTheApplicationsClientDoesNot() {
        contextRunner().withBean(LettuceConnectionFactory.class, () -> new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()),
                LettuceClientConfiguration.builder()
                    .clientOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.create()).build())
                    .build()))
            .run((context) -> {
                assertThat(context).hasNotFailed();
                awaitRedis(context.getBean(RedisRateLimiterFactory.class));
                RateLimiter limiter = context.getBean(RateLimiterRegistry.class)
                    .register("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(5, Duration.ofMinutes(1)));
                assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
                this.redis.pause();
                this.paused = true;
                // Without a timeout of its own this would wait for as long as Redis stays frozen.
                assertThat(decided(limiter.tryAcquireAsync("k")).allowed()).isTrue();
                assertThat(context.getBean(RedisRateLimiterFactory.class).isRedisAvailable()).as("one slow call is no outage").isTrue();
            });
    }
}
