package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.test.LatencyProxy;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.TestRedisCluster;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Asynchronous decisions ({@code tryAcquireAsync} through the reactive API) batched as blocking ones
 * are ({@link ScriptBatchesTests}): each is the decision its caller would have had alone, for every
 * algorithm, one and several limits, many threads on the same and on different keys; decisions on one
 * key go out in the order they were asked for; a failing batch goes to each caller's failure policy,
 * never to an exceptional future. Replies held back by a {@link LatencyProxy} make decisions queue, so
 * that batches form for certain.
 */
@RedisTest
@Timeout(120)
class ReactiveBatchesTests {

    final List<AutoCloseable> resources = new ArrayList<>();

    final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /**
     * Twelve limiters (every algorithm, one and two limits), 8 threads each asking 24 decisions on four
     * keys without waiting for any, round after round of virtual time: per limiter and key, Redis gives
     * the very decisions the twin gives for as many requests in a row.
     */
    @Test
    void concurrentAsyncDecisionsAreTheTwinsDecisionsForEveryAlgorithm() throws Exception {
        Slow slow = slow(Duration.ofSeconds(20));
        RedisRateLimiterFactory factory = started(batchedFactory(slow).clock(clock));
        slow.proxy().delayReplies(Duration.ofMillis(3));
        agreeWithTwins(factory, 8, 24, 6);
        ReactiveBatches batches = factory.reactiveBatches();
        assertThat(batches).isNotNull();
        assertThat(batches.batchedDecisions()).as("decisions sent in batches").isGreaterThan(100);
        assertThat(batches.calls()).as("script calls for 6 x 8 x 24 decisions").isLessThan(6 * 8 * 24 / 2);
        assertThat(factory.batches().calls()).as("blocking calls batched").isZero();
    }

    /** The same on a Redis Cluster, where only decisions of one slot go out together. */
    @Test
    void onAClusterAsyncDecisionsOfOneSlotAreBatchedAndStillTheTwins() throws Exception {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisClusterConfiguration(TestRedisCluster.shared().nodes()));
        connections.afterPropertiesSet();
        connections.start();
        resources.add(connections::destroy);
        RedisRateLimiterFactory factory = started(RedisRateLimiterFactory.builder(TestRedisSupport.template(connections))
            .reactiveRedis(new ReactiveStringRedisTemplate(connections))
            .keyPrefix(TestRedisSupport.uniquePrefix())
            .expectedInstances(1)
            .batching(64)
            .clock(clock));
        agreeWithTwins(factory, 8, 60, 3);
        ReactiveBatches batches = factory.reactiveBatches();
        assertThat(batches).isNotNull();
        assertThat(batches.batchedDecisions()).as("decisions sent in batches").isPositive();
    }

    private void agreeWithTwins(RedisRateLimiterFactory factory, int threads, int callsPerThread, int rounds) throws Exception {
        List<RateLimiterConfig> configs = ScriptBatchesTests.configs();
        List<RateLimiter> redis = new ArrayList<>();
        List<RateLimiter> twins = new ArrayList<>();
        RateLimiterFactory memory = Backend.MEMORY.factory(clock, null);
        for (int i = 0; i < configs.size(); i++) {
            redis.add(factory.create("l" + i, configs.get(i)));
            twins.add(memory.create("l" + i, configs.get(i)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        resources.add(pool::shutdownNow);
        Random random = new Random(20261126L); // fixed seed: a failure replays exactly
        int allowed = 0;
        int rejected = 0;
        for (int round = 0; round < rounds; round++) {
            List<Future<Map<String, List<CompletableFuture<Decision>>>>> asked = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                asked.add(pool.submit(() -> {
                    Map<String, List<CompletableFuture<Decision>>> pending = new HashMap<>();
                    for (int j = 0; j < callsPerThread; j++) {
                        int limiter = (thread + j) % redis.size();
                        int key = (thread * 7 + j) % ScriptBatchesTests.KEYS.length;
                        pending.computeIfAbsent(limiter + "/" + key, (k) -> new ArrayList<>())
                            .add(redis.get(limiter).tryAcquireAsync(ScriptBatchesTests.KEYS[key], ScriptBatchesTests.permits(limiter, key)).toCompletableFuture());
                    }
                    return pending;
                }));
            }
            Map<String, List<Decision>> batched = new HashMap<>();
            for (Future<Map<String, List<CompletableFuture<Decision>>>> future : asked) {
                for (Map.Entry<String, List<CompletableFuture<Decision>>> entry : future.get(60, TimeUnit.SECONDS).entrySet()) {
                    for (CompletableFuture<Decision> decision : entry.getValue()) {
                        batched.computeIfAbsent(entry.getKey(), (k) -> new ArrayList<>()).add(decision.get(60, TimeUnit.SECONDS));
                    }
                }
            }
            int[] outcomes = ScriptBatchesTests.assertTwinsDecided(batched, twins, configs, round);
            allowed += outcomes[0];
            rejected += outcomes[1];
            clock.advanceMicros(random.nextInt(3_000_001));
        }
        // Both outcomes must occur, or the comparison proves little.
        assertThat(allowed).as("allowed").isGreaterThan(100);
        assertThat(rejected).as("rejected").isGreaterThan(100);
    }

    /**
     * Five decisions asked one after the other on one thread while replies take 2 s: the first two go
     * out alone, the three on one key behind them go as one batch in the order asked, each with the
     * decision of its place (5 per 10 s: 3 taken, then 2, then nothing left for the third).
     */
    @Test
    void asyncDecisionsOnOneKeyInABatchAreAppliedInTheOrderAsked() throws Exception {
        Slow slow = slow(Duration.ofSeconds(20));
        RedisRateLimiterFactory factory = started(batchedFactory(slow).clock(clock));
        slow.proxy().delayReplies(Duration.ofSeconds(2));
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(5, Duration.ofSeconds(10)));
        List<Decision> decided = decideAll(List.of(limiter.tryAcquireAsync("a").toCompletableFuture(), limiter.tryAcquireAsync("b").toCompletableFuture(),
                limiter.tryAcquireAsync("k", 3).toCompletableFuture(), limiter.tryAcquireAsync("k", 2).toCompletableFuture(),
                limiter.tryAcquireAsync("k", 1).toCompletableFuture()));
        assertThat(decided).extracting(Decision::source).containsOnly(DecisionSource.REDIS);
        assertThat(decided).extracting(Decision::allowed).containsExactly(true, true, true, true, false);
        assertThat(decided).extracting(Decision::remaining).containsExactly(4L, 4L, 2L, 0L, 0L);
        ReactiveBatches batches = factory.reactiveBatches();
        assertThat(batches.calls()).as("two alone, then one batch of three").isEqualTo(3);
        assertThat(batches.batchedDecisions()).isEqualTo(3);
    }

    /**
     * Without a clock, the batch reads Redis TIME once and decides every decision at it: 16 requests
     * for one permit of a 5 per hour bucket, 14 of them in a batch, admit exactly 5, with 4 to 0 left.
     */
    @Test
    void withRedisTimeAnAsyncBatchDecidesEachDecisionAsAlone() throws Exception {
        Slow slow = slow(Duration.ofSeconds(20));
        RedisRateLimiterFactory factory = started(batchedFactory(slow));
        slow.proxy().delayReplies(Duration.ofSeconds(1));
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofHours(1)));
        List<CompletableFuture<Decision>> asked = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            asked.add(limiter.tryAcquireAsync("k").toCompletableFuture());
        }
        List<Decision> decided = decideAll(asked);
        assertThat(decided).extracting(Decision::source).containsOnly(DecisionSource.REDIS);
        assertThat(decided).filteredOn(Decision::allowed).extracting(Decision::remaining).containsExactly(4L, 3L, 2L, 1L, 0L);
        assertThat(factory.reactiveBatches().batchedDecisions()).isEqualTo(14);
    }

    /** A decision that fails in Redis (its key holds a list, not a string) fails alone; the others of its batch are decided. */
    @Test
    void aDecisionRedisFailsInAnAsyncBatchGoesToItsPolicyAlone() throws Exception {
        Slow slow = slow(Duration.ofSeconds(20));
        RedisRateLimiterFactory factory = started(batchedFactory(slow).clock(clock).failurePolicy(FailurePolicy.DENY));
        RedisRateLimiter limiter = (RedisRateLimiter) factory.create("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofSeconds(10)));
        TestRedisSupport.shared().opsForList().leftPush(limiter.redisKey("bad"), "not a bucket");
        slow.proxy().delayReplies(Duration.ofSeconds(2));
        List<Decision> decided = decideAll(List.of(limiter.tryAcquireAsync("a").toCompletableFuture(), limiter.tryAcquireAsync("b").toCompletableFuture(),
                limiter.tryAcquireAsync("k").toCompletableFuture(), limiter.tryAcquireAsync("bad").toCompletableFuture(),
                limiter.tryAcquireAsync("k").toCompletableFuture()));
        assertThat(decided).extracting(Decision::source).containsExactly(DecisionSource.REDIS, DecisionSource.REDIS, DecisionSource.REDIS,
                DecisionSource.FAILURE_POLICY, DecisionSource.REDIS);
        assertThat(decided.get(4).remaining()).isEqualTo(3);
        assertThat(factory.reactiveBatches().batchedDecisions()).isEqualTo(3);
        assertThat(factory.isRedisAvailable()).isTrue();
    }

    /**
     * Replies later than the command timeout: the two calls in flight time out, and the three decisions
     * queued behind them are not sent after them (which would hold their callers for another timeout):
     * all five go to the failure policy, none to an exceptional future.
     */
    @Test
    void anAsyncBatchThatTimesOutGoesToTheFailurePolicyOfEveryCaller() throws Exception {
        Slow slow = slow(Duration.ofSeconds(2));
        RedisRateLimiterFactory factory = started(batchedFactory(slow).clock(clock).failurePolicy(FailurePolicy.DENY));
        // Closed before the factory, so that it leaves without waiting for late replies.
        resources.add(() -> slow.proxy().delayReplies(Duration.ZERO));
        RateLimiter limiter = factory.create("orders", Algorithm.GCRA, LimitSpec.of(5, Duration.ofSeconds(10)));
        assertThat(limiter.tryAcquireAsync("k").toCompletableFuture().get(10, TimeUnit.SECONDS).source()).isEqualTo(DecisionSource.REDIS);
        ReactiveBatches batches = factory.reactiveBatches();
        long before = batches.calls();
        slow.proxy().delayReplies(Duration.ofSeconds(4));
        List<Decision> decided = decideAll(List.of(limiter.tryAcquireAsync("a").toCompletableFuture(), limiter.tryAcquireAsync("b").toCompletableFuture(),
                limiter.tryAcquireAsync("k").toCompletableFuture(), limiter.tryAcquireAsync("k").toCompletableFuture(),
                limiter.tryAcquireAsync("c").toCompletableFuture()));
        assertThat(decided).extracting(Decision::source).containsOnly(DecisionSource.FAILURE_POLICY);
        assertThat(decided).extracting(Decision::allowed).containsOnly(false);
        assertThat(batches.calls() - before).as("the queued decisions were not sent").isEqualTo(2);
    }

    /** Each future's decision, waited for at most 30 s: a future left pending fails the test instead of hanging it. */
    private static List<Decision> decideAll(List<CompletableFuture<Decision>> futures) throws Exception {
        List<Decision> decided = new ArrayList<>();
        for (CompletableFuture<Decision> future : futures) {
            decided.add(future.get(30, TimeUnit.SECONDS));
        }
        return decided;
    }

    /** A blocking and a reactive template on one connection factory, over a proxy in front of the shared test Redis. */
    private record Slow(LatencyProxy proxy, LettuceConnectionFactory connections) {
    }

    /** Templates whose replies the returned proxy holds back (from when the test says so), with {@code timeout} as the command timeout. */
    private Slow slow(Duration timeout) {
        TestRedis redis = TestRedis.shared();
        Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL || !redis.url().contains("@"), "the proxy template carries no credentials");
        LatencyProxy proxy = LatencyProxy.start(redis.host(), redis.port());
        resources.add(proxy);
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
                LettuceClientConfiguration.builder().commandTimeout(timeout).shutdownTimeout(Duration.ZERO).build());
        connections.afterPropertiesSet();
        connections.start();
        resources.add(connections::destroy);
        return new Slow(proxy, connections);
    }

    /** {@code builder}'s factory, warmed up (connected, scripts loaded, the kind of Redis known) and closed after the test. */
    private RedisRateLimiterFactory started(RedisRateLimiterFactory.Builder builder) {
        RedisRateLimiterFactory factory = builder.build();
        factory.warmUp();
        resources.add(factory::close);
        return factory;
    }

    /** A batching factory on {@code slow}'s templates; warmed up by the test before the replies are held back. */
    private RedisRateLimiterFactory.Builder batchedFactory(Slow slow) {
        return RedisRateLimiterFactory.builder(TestRedisSupport.template(slow.connections()))
            .reactiveRedis(new ReactiveStringRedisTemplate(slow.connections()))
            .keyPrefix(TestRedisSupport.uniquePrefix())
            .expectedInstances(1)
            .batching(64);
    }
}
