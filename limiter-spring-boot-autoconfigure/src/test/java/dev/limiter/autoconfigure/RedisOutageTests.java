package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.RateLimitExceededException;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A real {@code redis-server} killed and restarted under concurrent load, through the
 * auto-configured stack (the limiters' own connection with its short timeout): no exception but
 * rejections reaches a caller, no call stalls, and Redis decides again soon after it answers.
 */
@RedisTest
@Timeout(120)
class RedisOutageTests {

    private TestRedis redis;

    private ApplicationContextRunner contextRunner;

    @BeforeEach
    void startPrivateRedis() {
        this.redis = TestRedis.start();
        Assumptions.assumeTrue(this.redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
        this.contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=" + this.redis.url(), "limiter.key-prefix=outage-" + UUID.randomUUID(),
                    "limiter.redis.timeout=100ms", "limiter.redis.probe-interval=100ms")
            .withUserConfiguration(ServiceConfiguration.class);
    }

    @AfterEach
    void stopPrivateRedis() {
        if (this.redis != null) {
            this.redis.close();
        }
    }

    @Test
    void redisDownAtStartupDoesNotStopTheApplication() {
        this.redis.kill();
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
            assertThat(factory.isRedisAvailable()).as("the warm-up found Redis down").isFalse();
            // Decided by the local policy: the call runs.
            context.getBean(Service.class).call("k");
            this.redis.restart();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!factory.isRedisAvailable() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(factory.isRedisAvailable()).isTrue();
        });
    }

    @Test
    void killAndRestartUnderLoadNeverReachesCallersAndRedisDecidesAgain() {
        this.contextRunner.run((context) -> {
            Service service = context.getBean(Service.class);
            RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
            Load load = new Load(service, 8);
            load.start();
            load.awaitCalls(200);
            this.redis.kill();
            load.awaitCalls(load.calls() + 500);
            // Out once the client's attempt to reconnect is refused and a call (or the charge of what
            // the policy admitted) fails after it: a dropped connection alone is no outage.
            awaitOut(factory);
            this.redis.restart();
            long answered = System.nanoTime();
            while (!factory.isRedisAvailable() && System.nanoTime() - answered < TimeUnit.SECONDS.toNanos(5)) {
                Thread.onSpinWait();
            }
            Duration resumed = Duration.ofNanos(System.nanoTime() - answered);
            load.awaitCalls(load.calls() + 200);
            load.stop();

            assertThat(load.unexpected).as("exceptions other than rejections").isEmpty();
            assertThat(resumed).as("Redis decides again within a second of answering").isLessThanOrEqualTo(Duration.ofSeconds(1));
            // A dead Redis fails a command at once (rejected while disconnected), so no thread waits on it.
            assertThat(Duration.ofNanos(load.slowest.get())).as("slowest call").isLessThan(Duration.ofSeconds(1));
            // Decisions come from Redis again: the key was written after the restart emptied it.
            StringRedisTemplate template = new StringRedisTemplate(context.getBean(
                    org.springframework.data.redis.connection.RedisConnectionFactory.class));
            assertThat(template.keys("outage-*")).isNotEmpty();
        });
    }

    @Test
    void aStalledRedisHoldsNoCallLongerThanTheTimeout() {
        this.contextRunner.run((context) -> {
            RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
            Load load = new Load(context.getBean(Service.class), 8);
            load.start();
            load.awaitCalls(200);
            // Frozen, not dead: connections stay open and commands just get no answer.
            this.redis.pause();
            load.awaitCalls(load.calls() + 500);
            // Out once calls (or the charge of what the policy admitted) have failed for outage-after (1 s).
            awaitOut(factory);
            this.redis.resume();
            long answered = System.nanoTime();
            while (!factory.isRedisAvailable() && System.nanoTime() - answered < TimeUnit.SECONDS.toNanos(5)) {
                Thread.sleep(5);
            }
            Duration resumed = Duration.ofNanos(System.nanoTime() - answered);
            load.awaitCalls(load.calls() + 200);
            load.stop();
            assertThat(load.unexpected).as("exceptions other than rejections").isEmpty();
            // limiter.redis.timeout is 100 ms: a call waits that long at most, once, then the policy
            // decides without asking Redis (the slack is for a loaded test machine).
            assertThat(Duration.ofNanos(load.slowest.get())).as("slowest call").isLessThan(Duration.ofSeconds(1));
            assertThat(resumed).as("Redis decides again within a second of answering").isLessThanOrEqualTo(Duration.ofSeconds(1));
        });
    }

    @Test
    void scriptFlushCostsNoFailedDecision() {
        // A generous timeout: this is about NOSCRIPT, not about slowness.
        this.contextRunner.withPropertyValues("limiter.redis.timeout=5s").run((context) -> {
            Service service = context.getBean(Service.class);
            RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
            service.call("k");
            StringRedisTemplate template = new StringRedisTemplate(context.getBean(
                    org.springframework.data.redis.connection.RedisConnectionFactory.class));
            template.execute((org.springframework.data.redis.core.RedisCallback<Void>) (connection) -> {
                connection.scriptingCommands().scriptFlush();
                return null;
            });
            // EVALSHA now answers NOSCRIPT; the script is sent again with EVAL in the same call.
            service.call("k");
            assertThat(factory.isRedisAvailable()).as("NOSCRIPT is not an outage").isTrue();
        });
    }

    /** Callers on several threads, recording anything unexpected and the slowest call. */
    /** Waits (at most 5 s) until the limiters count Redis as out, while the load goes on. */
    static void awaitOut(RedisRateLimiterFactory factory) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (factory.isRedisAvailable() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(factory.isRedisAvailable()).as("the failure policy decides during the outage").isFalse();
    }

    static final class Load {

        final Service service;

        final int threads;

        /** Calls per thread after which it stops by itself. */
        final int callsPerThread;

        /** Time after which every thread stops by itself. */
        final Duration maxDuration;

        final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

        final AtomicLong slowest = new AtomicLong();

        final AtomicInteger calls = new AtomicInteger();

        final AtomicBoolean running = new AtomicBoolean(true);

        private ExecutorService executor;

        private final List<Future<?>> futures = new ArrayList<>();

        Load(Service service, int threads) {
            this(service, threads, 100_000, Duration.ofMinutes(2));
        }

        /**
         * Load that lasts until stopped or for the given time, however many calls that is: while Redis is
         * away the failure policy decides in memory at well over 100k calls a second, which exhausts a
         * bound on calls within seconds and leaves nothing running after a long outage.
         */
        static Load lasting(Service service, int threads, Duration maxDuration) {
            return new Load(service, threads, Integer.MAX_VALUE, maxDuration);
        }

        private Load(Service service, int threads, int callsPerThread, Duration maxDuration) {
            this.service = service;
            this.threads = threads;
            this.callsPerThread = callsPerThread;
            this.maxDuration = maxDuration;
        }

        void start() {
            this.executor = Executors.newFixedThreadPool(this.threads);
            CountDownLatch started = new CountDownLatch(this.threads);
            for (int t = 0; t < this.threads; t++) {
                String key = "user-" + t;
                this.futures.add(this.executor.submit(() -> {
                    started.countDown();
                    // Bounded: the test stops the load, and the loop ends by itself after callsPerThread calls
                    // or maxDuration, whichever comes first.
                    long end = System.nanoTime() + this.maxDuration.toNanos();
                    for (int i = 0; i < this.callsPerThread && this.running.get() && System.nanoTime() - end < 0; i++) {
                        long start = System.nanoTime();
                        try {
                            this.service.call(key);
                        }
                        catch (RateLimitExceededException ex) {
                            // expected: the limit or the failure policy rejects
                        }
                        catch (Throwable ex) {
                            this.unexpected.add(ex);
                        }
                        this.slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
                        this.calls.incrementAndGet();
                    }
                }));
            }
        }

        int calls() {
            return this.calls.get();
        }

        void awaitCalls(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (this.calls.get() < count && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }

        void stop() throws Exception {
            this.running.set(false);
            for (Future<?> future : this.futures) {
                future.get(10, TimeUnit.SECONDS);
            }
            this.executor.shutdownNow();
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        Service service() {
            return new Service();
        }

    }

    static class Service {

        @RateLimited(name = "calls", key = "#key", limit = 1000, window = "1h")
        public void call(String key) {
        }

    }

}
