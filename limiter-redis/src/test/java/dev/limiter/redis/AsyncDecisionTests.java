package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@link RateLimiter#tryAcquireAsync} on Redis through the reactive API: the same decisions as the
 * blocking path, with the same guarantees (the failure policy decides while Redis fails, NOSCRIPT is
 * no failure, a timed-out script is never sent again), and no thread waiting for Redis.
 */
@RedisTest
@Timeout(60)
class AsyncDecisionTests {

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    record Heard(Decision decision, DecisionSource source, long redisNanos) {
    }

    final List<Heard> heard = new CopyOnWriteArrayList<>();

    final DecisionListener listener = (event) -> heard.add(new Heard(event.decision(), event.decision().source(), event.redisNanos()));

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    /** The decision, waited for at most 10 s: a stage left pending fails the test instead of hanging it. */
    static Decision decided(CompletionStage<Decision> stage) {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException | ExecutionException | TimeoutException ex) {
            throw new AssertionError("no decision: " + ex, ex);
        }
    }

    /** Per algorithm: the config whose decisions are compared, with several limits, and max-wait where it applies. */
    static RateLimiterConfig comparedConfig(Algorithm algorithm) {
        LimitSpec perSecond = LimitSpec.of(3, Duration.ofSeconds(1));
        LimitSpec perMinute = LimitSpec.of(20, Duration.ofMinutes(1));
        if (algorithm.isBucket()) {
            return RateLimiterConfig.of(algorithm, perSecond.withBurst(4), perMinute).withMaxWait(Duration.ofMillis(500));
        }
        return RateLimiterConfig.of(algorithm, perSecond, perMinute);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void asyncDecisionsAreTheBlockingOnes(Algorithm algorithm) {
        RedisRateLimiterFactory blocking = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix + "-sync")
            .clock(clock).build();
        RedisRateLimiterFactory async = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix + "-async")
            .clock(clock)
            .reactiveRedis(TestRedisSupport.sharedReactive()).build();
        RateLimiter sync = blocking.create("api", comparedConfig(algorithm));
        RateLimiter reactive = async.create("api", comparedConfig(algorithm));
        Random random = new Random(algorithm.ordinal());
        int rejected = 0;
        for (int i = 0; i < 200; i++) {
            long permits = 1 + random.nextInt(random.nextInt(8) == 0 ? 6 : 2);
            Decision expected = sync.tryAcquire("k", permits);
            Decision actual = decided(reactive.tryAcquireAsync("k", permits));
            assertThat(actual).as("call %d of %d permits", i, permits).isEqualTo(expected);
            rejected += expected.rejected() ? 1 : 0;
            clock.advance(Duration.ofMillis(random.nextInt(400)));
        }
        assertThat(rejected).as("the sequence reaches the limits").isPositive();
        assertThat(async.isRedisAvailable()).isTrue();
    }

    @Test
    void onePermitOverloadTakesOne() {
        RateLimiter limiter = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix)
            .clock(clock)
            .reactiveRedis(TestRedisSupport.sharedReactive()).build()
            .create("orders", Algorithm.FIXED_WINDOW, FIVE_PER_10S);
        assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
        assertThat(decided(limiter.tryAcquireAsync("k", 4)).remaining()).isZero();
        assertThat(decided(limiter.tryAcquireAsync("k")).allowed()).isFalse();
    }

    @Test
    void listenerHearsRedisWithTheRoundTrip() {
        RateLimiter limiter = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix)
            .clock(clock)
            .listener(listener)
            .reactiveRedis(TestRedisSupport.sharedReactive()).build()
            .create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        Decision decision = decided(limiter.tryAcquireAsync("k"));
        assertThat(heard).singleElement().satisfies((h) -> {
            assertThat(h.decision()).isEqualTo(decision);
            assertThat(h.source()).isEqualTo(DecisionSource.REDIS);
            assertThat(h.redisNanos()).isPositive().isLessThan(TimeUnit.SECONDS.toNanos(10));
        });
    }

    @Test
    void withoutReactiveOperationsTheAsyncCallDecidesBlocking() {
        RateLimiter limiter = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix)
            .clock(clock)
            .listener(listener).build()
            .create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        CompletableFuture<Decision> stage = limiter.tryAcquireAsync("k").toCompletableFuture();
        assertThat(stage).as("decided on the calling thread").isDone();
        assertThat(decided(stage).remaining()).isEqualTo(4);
        assertThat(heard).extracting(Heard::source).containsExactly(DecisionSource.REDIS);
    }

    @Test
    void inMemoryLimitersDecideAtOnce() {
        RateLimiter limiter = InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(100).build().create("orders", Algorithm.GCRA, FIVE_PER_10S);
        CompletableFuture<Decision> stage = limiter.tryAcquireAsync("k", 5).toCompletableFuture();
        assertThat(stage).isDone();
        assertThat(decided(stage).remaining()).isZero();
        assertThat(decided(limiter.tryAcquireAsync("k")).allowed()).isFalse();
    }

    @Test
    void badArgumentsFailAtOnceAsInTheBlockingCall() {
        RateLimiter limiter = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix)
            .reactiveRedis(TestRedisSupport.sharedReactive()).build()
            .create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireAsync("k", 0)).withMessageContaining("permits");
        assertThatIllegalArgumentException().isThrownBy(() -> RedisRateLimiterFactory.builder(TestRedisSupport.shared()).reactiveRedis(null).build())
            .withMessageContaining("reactiveRedis");
    }

    /**
     * Reactor stays optional: every class of the Redis backend but {@link ReactiveScripts} is free of Reactor
     * types, so it loads and decides without Reactor (as with Jedis, which does not bring it).
     */
    @Test
    void onlyReactiveScriptsReferToReactor() throws IOException {
        Path classes = Paths.get("target", "classes", "dev", "limiter", "redis");
        List<String> referring = new ArrayList<>();
        try (Stream<Path> files = Files.list(classes)) {
            for (Path file : files.filter((f) -> f.toString().endsWith(".class")).toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    // Class files name the classes they use in their constant pool, as UTF-8 text.
                    if (new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).contains("reactor/core/")) {
                        referring.add(file.getFileName().toString());
                    }
                }
            }
        }
        // And what hears Lettuce's reconnect failures on its event bus: loaded only with Lettuce, which brings Reactor.
        assertThat(referring).containsExactlyInAnyOrder("ReactiveScripts.class", "ReconnectFailures.class");
    }

    /** Tests on a Redis of their own, which they flush, kill or freeze. */
    @Nested
    class OnAPrivateRedis {

        PrivateRedis server;

        TestRedis redis;

        LettuceConnectionFactory connections;

        StringRedisTemplate template;

        boolean paused;

        /** Freezes Redis (SIGSTOP): connections stay open, nothing is answered. */
        void pause() {
            redis.pause();
            paused = true;
        }

        void resume() {
            redis.resume();
            paused = false;
        }

        RedisRateLimiterFactory factory(FailurePolicy policy) {
            return builder(policy).build();
        }

        RedisRateLimiterFactory.Builder builder(FailurePolicy policy) {
            // As the limiters' own connection in an application: short timeouts, for the reactive API too.
            server = PrivateRedis.start(Duration.ofMillis(300), Delay.constant(Duration.ofMillis(50)));
            redis = server.redis;
            connections = server.connections;
            template = server.template;
            return RedisRateLimiterFactory.builder(template).keyPrefix(prefix)
                .clock(clock)
                .listener(listener)
                .probeInterval(Duration.ofMillis(50))
                .failurePolicy(policy)
                .localLimiters(InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(1000).build())
                .expectedInstances(1)
                .reactiveRedis(new ReactiveStringRedisTemplate(connections));
        }

        @AfterEach
        void stopPrivateRedis() {
            if (paused) {
                // A frozen server must run again before it can be stopped cleanly.
                resume();
            }
            if (server != null) {
                server.close();
            }
        }

        @Test
        void scriptFlushCostsNoFailedDecision() {
            RedisRateLimiterFactory factory = factory(FailurePolicy.DENY);
            RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
            template.execute((RedisCallback<Void>) (connection) -> {
                connection.scriptingCommands().scriptFlush();
                return null;
            });
            // EVALSHA answers NOSCRIPT; the reactive executor sends the script with EVAL in the same call.
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(3);
            assertThat(factory.isRedisAvailable()).as("NOSCRIPT is not an outage").isTrue();
            assertThat(heard).extracting(Heard::source).containsOnly(DecisionSource.REDIS);
        }

        @ParameterizedTest
        @EnumSource(FailurePolicy.class)
        void aDeadRedisCompletesTheStageWithThePolicysDecision(FailurePolicy policy) {
            // Every failed call an outage: a killed Redis first drops the connection, which alone is none.
            RedisRateLimiterFactory factory = builder(policy).outageAfter(Duration.ZERO).build();
            RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
            redis.kill();
            CompletableFuture<Decision> failed = limiter.tryAcquireAsync("k").toCompletableFuture();
            Decision decision = decided(failed);
            assertThat(failed).as("never completed exceptionally").isCompletedWithValue(decision);
            assertThat(factory.isRedisAvailable()).isFalse();
            assertThat(decision.allowed()).isEqualTo(policy != FailurePolicy.DENY);
            DecisionSource expected = (policy == FailurePolicy.LOCAL) ? DecisionSource.LOCAL_FALLBACK : DecisionSource.FAILURE_POLICY;
            assertThat(heard.get(1).source()).isEqualTo(expected);
            assertThat(heard.get(1).redisNanos()).isEqualTo(-1);
            // While Redis is away no call goes to it: each decision is there on return.
            for (int i = 0; i < 5; i++) {
                assertThat(limiter.tryAcquireAsync("k").toCompletableFuture()).isDone();
            }
        }

        @Test
        void aStalledRedisBlocksNoThreadAndThePolicyDecidesAfterTheTimeout() {
            AtomicLong nanos = new AtomicLong();
            RedisRateLimiterFactory factory = builder(FailurePolicy.ALLOW).nanoTime(nanos::get).build();
            RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, FIVE_PER_10S);
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
            pause();
            CompletableFuture<Decision> pending = limiter.tryAcquireAsync("k").toCompletableFuture();
            // Frozen, Redis cannot have answered: the call returned without waiting for it.
            assertThat(pending).isNotDone();
            Decision decision = decided(pending);
            assertThat(pending).as("the timeout completes it, with the policy's decision").isCompletedWithValue(decision);
            assertThat(decision.allowed()).isTrue();
            assertThat(heard.get(1).source()).isEqualTo(DecisionSource.FAILURE_POLICY);
            assertThat(factory.isRedisAvailable()).as("one slow call is no outage").isTrue();
            // Calls failing for the outage time, none succeeding, are one.
            nanos.addAndGet(RedisRateLimiterFactory.DEFAULT_OUTAGE_AFTER.toNanos());
            // Another key: "k" owes the permit the policy admitted, so it is decided without Redis until charged.
            assertThat(decided(limiter.tryAcquireAsync("k2")).allowed()).isTrue();
            assertThat(factory.isRedisAvailable()).isFalse();
        }

        /**
         * A connection whose own timeout would keep a caller waiting (30 s here, or a command queued while a
         * connection is made again) is bounded by the limiter's deadline: the policy decides after it.
         */
        @Test
        void theDeadlineBoundsAnAsynchronousDecisionWhateverTheConnectionsTimeouts() {
            server = PrivateRedis.start(Duration.ofSeconds(30), Delay.constant(Duration.ofMillis(50)));
            redis = server.redis;
            RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(server.template).keyPrefix(prefix)
                .clock(clock)
                .listener(listener)
                .failurePolicy(FailurePolicy.DENY)
                .expectedInstances(1)
                .reactiveRedis(new ReactiveStringRedisTemplate(server.connections), Duration.ofMillis(300))
                .build();
            RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
            pause();
            // Without the deadline the stage would wait the connection's 30 s, beyond decided()'s 10 s.
            Decision decision = decided(limiter.tryAcquireAsync("k"));
            assertThat(decision.allowed()).as("denied by the policy").isFalse();
            assertThat(heard.get(1).source()).isEqualTo(DecisionSource.FAILURE_POLICY);
            assertThatIllegalArgumentException()
                .isThrownBy(() -> RedisRateLimiterFactory.builder(server.template).reactiveRedis(new ReactiveStringRedisTemplate(server.connections),
                        Duration.ZERO))
                .withMessageContaining("must be positive");
        }

        @Test
        void aTimedOutScriptIsNeverSentAgain() throws InterruptedException {
            RedisRateLimiterFactory factory = factory(FailurePolicy.ALLOW);
            RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, FIVE_PER_10S);
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(4);
            pause();
            assertThat(decided(limiter.tryAcquireAsync("k")).allowed()).as("allowed by the policy").isTrue();
            // The script stayed in the socket: Redis runs it once when it resumes.
            resume();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!factory.isRedisAvailable() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(factory.isRedisAvailable()).as("the probe found Redis again").isTrue();
            while (factory.unchargedKeys() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(factory.unchargedKeys()).as("the permit the policy admitted, charged").isZero();
            // Three of five taken before: the timed-out script ran once, never sent again, and the
            // permit the policy admitted for it was charged too: a permit too few, never one too many.
            assertThat(decided(limiter.tryAcquireAsync("k")).remaining()).isEqualTo(1);
        }
    }
}
