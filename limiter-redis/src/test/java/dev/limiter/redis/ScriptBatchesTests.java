package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.CalendarWindow;
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
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Batched decisions are the decisions each caller would have had alone: for every algorithm, one
 * and several limits, many threads on the same and on different keys, in queue order on one key; a
 * failing batch goes to each caller's failure policy; a script Redis lost is sent again. Replies
 * held back by a {@link LatencyProxy} make decisions queue, so that batches form for certain.
 */
@RedisTest
@Timeout(120)
class ScriptBatchesTests {

    static final LimitSpec SPEC = LimitSpec.of(7, Duration.ofSeconds(10)).withBurst(9);

    static final String[] KEYS = { "hot", "a", "b", "c" };

    final List<AutoCloseable> resources = new ArrayList<>();

    final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /** The configurations compared: each algorithm with one limit, and with two (buckets waiting up to 2 s). */
    static List<RateLimiterConfig> configs() {
        List<RateLimiterConfig> configs = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.values()) {
            configs.add(RateLimiterConfig.of(algorithm, SPEC));
            RateLimiterConfig.Builder two = RateLimiterConfig.builder(algorithm).limit(LimitSpec.of(3, Duration.ofSeconds(1)))
                .limit(LimitSpec.of(11, Duration.ofSeconds(30)));
            if (algorithm.isBucket()) {
                two.maxWait(Duration.ofSeconds(2));
            }
            configs.add(two.build());
        }
        return configs;
    }

    /**
     * Twelve limiters (every algorithm, one and two limits) on one factory, 16 threads deciding on four
     * keys at once, round after round of virtual time: per limiter and key, Redis gives the very
     * decisions the twin gives for as many requests in a row. Within a round every request on one
     * limiter and key is the same (same time, same permits), so the decisions do not depend on which
     * caller came first, and the twin's sequence is their exact multiset.
     */
    @Test
    void concurrentBatchedDecisionsAreTheTwinsDecisionsForEveryAlgorithm() throws Exception {
        RedisRateLimiterFactory factory = batchedFactory(slowTemplate(Duration.ofMillis(3)), 64).clock(clock).build();
        agreeWithTwins(factory, 16, 24, 6);
        ScriptBatches batches = factory.batches();
        assertThat(batches).isNotNull();
        assertThat(batches.batchedDecisions()).as("decisions sent in batches").isGreaterThan(100);
        assertThat(batches.calls()).as("script calls for 6 x 16 x 24 decisions").isLessThan(6 * 16 * 24 / 2);
    }

    /** The same on a Redis Cluster, where only decisions of one slot go out together: the hot key's. */
    @Test
    void onAClusterDecisionsOfOneSlotAreBatchedAndStillTheTwins() throws Exception {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisClusterConfiguration(TestRedisCluster.shared().nodes()));
        connections.afterPropertiesSet();
        connections.start();
        resources.add(connections::destroy);
        RedisRateLimiterFactory factory = batchedFactory(TestRedisSupport.template(connections), 64).clock(clock).build();
        agreeWithTwins(factory, 16, 60, 3);
        ScriptBatches batches = factory.batches();
        assertThat(batches).isNotNull();
        assertThat(batches.batchedDecisions()).as("decisions sent in batches").isPositive();
    }

    private void agreeWithTwins(RedisRateLimiterFactory factory, int threads, int callsPerThread, int rounds) throws Exception {
        List<RateLimiterConfig> configs = configs();
        List<RateLimiter> redis = new ArrayList<>();
        List<RateLimiter> twins = new ArrayList<>();
        RateLimiterFactoryPair pair = new RateLimiterFactoryPair(factory, Backend.MEMORY.factory(clock, null));
        for (int i = 0; i < configs.size(); i++) {
            redis.add(pair.redis().create("l" + i, configs.get(i)));
            twins.add(pair.memory().create("l" + i, configs.get(i)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        resources.add(pool::shutdownNow);
        Random random = new Random(20261125L); // fixed seed: a failure replays exactly
        int allowed = 0;
        int rejected = 0;
        for (int round = 0; round < rounds; round++) {
            List<Future<Map<String, List<Decision>>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    Map<String, List<Decision>> decided = new HashMap<>();
                    for (int j = 0; j < callsPerThread; j++) {
                        int limiter = (thread + j) % redis.size();
                        int key = (thread * 7 + j) % KEYS.length;
                        decided.computeIfAbsent(limiter + "/" + key, (k) -> new ArrayList<>())
                            .add(redis.get(limiter).tryAcquire(KEYS[key], permits(limiter, key)));
                    }
                    return decided;
                }));
            }
            Map<String, List<Decision>> batched = new HashMap<>();
            for (Future<Map<String, List<Decision>>> result : results) {
                result.get(60, TimeUnit.SECONDS).forEach((k, decisions) -> batched.computeIfAbsent(k, (x) -> new ArrayList<>()).addAll(decisions));
            }
            int[] outcomes = assertTwinsDecided(batched, twins, configs, round);
            allowed += outcomes[0];
            rejected += outcomes[1];
            clock.advanceMicros(random.nextInt(3_000_001));
        }
        // Both outcomes must occur, or the comparison proves little.
        assertThat(allowed).as("allowed").isGreaterThan(100);
        assertThat(rejected).as("rejected").isGreaterThan(100);
    }

    /**
     * Asserts that Redis gave each limiter and key ({@code "limiter/key"}, indexes into {@code twins} and
     * {@link #KEYS}) the very decisions its twin gives for as many requests in a row, in any order.
     *
     * @return how many of them the twins admitted and rejected
     */
    static int[] assertTwinsDecided(Map<String, List<Decision>> decided, List<RateLimiter> twins, List<RateLimiterConfig> configs,
            int round) {
        int[] outcomes = new int[2];
        for (Map.Entry<String, List<Decision>> entry : decided.entrySet()) {
            String[] at = entry.getKey().split("/");
            int limiter = Integer.parseInt(at[0]);
            int key = Integer.parseInt(at[1]);
            List<Decision> alone = new ArrayList<>();
            for (int n = 0; n < entry.getValue().size(); n++) {
                alone.add(twins.get(limiter).tryAcquire(KEYS[key], permits(limiter, key)));
            }
            assertThat(entry.getValue()).as("round %d, %s, key %s", round, configs.get(limiter), KEYS[key])
                .extracting(Decision::source).containsOnly(DecisionSource.REDIS);
            assertThat(entry.getValue()).as("round %d, %s, key %s", round, configs.get(limiter), KEYS[key])
                .containsExactlyInAnyOrderElementsOf(alone);
            for (Decision decision : alone) {
                outcomes[decision.allowed() ? 0 : 1]++;
            }
        }
        return outcomes;
    }

    static long permits(int limiter, int key) {
        return 1 + (limiter + key) % 2;
    }

    /**
     * Two calls in flight, three decisions on one key queued behind them in a known order: they go out
     * as one batch, and each gets the decision of its place in the queue (5 per 10 s: 3 taken, then 2,
     * then nothing left for the third).
     */
    @Test
    void decisionsOnOneKeyInABatchAreAppliedInQueueOrder() throws Exception {
        RedisRateLimiterFactory factory = batchedFactory(slowTemplate(Duration.ofSeconds(2)), 64).clock(clock).build();
        ScriptBatches batches = factory.batches();
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(5, Duration.ofSeconds(10)));
        List<Future<Decision>> decided = inQueueOrder(batches, List.of(() -> limiter.tryAcquire("a"), () -> limiter.tryAcquire("b"),
                () -> limiter.tryAcquire("k", 3), () -> limiter.tryAcquire("k", 2), () -> limiter.tryAcquire("k", 1)));
        assertThat(decided.get(2).get().remaining()).isEqualTo(2);
        assertThat(decided.get(3).get().remaining()).isZero();
        assertThat(decided.get(3).get().allowed()).isTrue();
        assertThat(decided.get(4).get().allowed()).isFalse();
        assertThat(decided).extracting((f) -> f.get().source()).containsOnly(DecisionSource.REDIS);
        assertThat(batches.calls()).as("two alone, then one batch of three").isEqualTo(3);
        assertThat(batches.batchedDecisions()).isEqualTo(3);
    }

    /**
     * Decisions of two configurations in one batch (a fixed window of 5 and a token bucket of 3 per
     * 10 s), each configuration's shared arguments sent once: each decision is its own limiter's, in
     * queue order on each key.
     */
    @Test
    void aBatchOfSeveralConfigurationsDecidesEachByItsOwn() throws Exception {
        RedisRateLimiterFactory factory = batchedFactory(slowTemplate(Duration.ofSeconds(2)), 64).clock(clock).build();
        ScriptBatches batches = factory.batches();
        RateLimiter window = factory.create("window", Algorithm.FIXED_WINDOW, LimitSpec.of(5, Duration.ofSeconds(10)));
        RateLimiter bucket = factory.create("bucket", Algorithm.TOKEN_BUCKET, LimitSpec.of(3, Duration.ofSeconds(10)));
        List<Future<Decision>> decided = inQueueOrder(batches, List.of(() -> window.tryAcquire("a"), () -> bucket.tryAcquire("b"),
                () -> window.tryAcquire("k", 3), () -> bucket.tryAcquire("k", 2), () -> window.tryAcquire("k", 2),
                () -> bucket.tryAcquire("k", 2), () -> window.tryAcquire("k", 1)));
        assertThat(decided).extracting((f) -> f.get().source()).containsOnly(DecisionSource.REDIS);
        assertThat(decided).extracting((f) -> f.get().allowed()).containsExactly(true, true, true, true, true, false, false);
        assertThat(decided).extracting((f) -> f.get().remaining()).containsExactly(4L, 2L, 2L, 1L, 0L, 1L, 0L);
        assertThat(batches.calls()).as("two alone, then one batch of five").isEqualTo(3);
        assertThat(batches.batchedDecisions()).isEqualTo(5);
    }

    /**
     * A batch whose decisions straddle the end of a calendar window counts each in its own window: a limit of 3
     * per calendar month in Europe/Berlin, 4 decisions a second before midnight of January 31 and 4 a second
     * after, all in one batch, whose window boundaries are computed once, for its first decision's time: 3
     * admitted in January, 3 in February, each fourth rejected until its own month ends.
     */
    @Test
    void aBatchAcrossTheEndOfACalendarWindowCountsEachDecisionInItsOwnWindow() throws Exception {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        long midnight = LocalDateTime.parse("2026-02-01T00:00").atZone(berlin).toInstant().getEpochSecond() * 1_000_000L;
        long march = LocalDateTime.parse("2026-03-01T00:00").atZone(berlin).toInstant().getEpochSecond() * 1_000_000L;
        VirtualClock monthEnd = new VirtualClock(midnight - 1_000_000L);
        RedisRateLimiterFactory factory = batchedFactory(slowTemplate(Duration.ofSeconds(2)), 64).clock(monthEnd).build();
        RateLimiter limiter = factory.create("billing", RateLimiterConfig.of(Algorithm.FIXED_WINDOW,
                LimitSpec.perCalendar(3, CalendarWindow.months(berlin, 1))));
        List<Callable<Decision>> calls = new ArrayList<>(List.of(() -> limiter.tryAcquire("a"), () -> limiter.tryAcquire("b")));
        for (int i = 0; i < 4; i++) {
            calls.add(() -> limiter.tryAcquire("k"));
        }
        calls.add(() -> {
            // Two seconds on, before this decision: a second into February.
            monthEnd.advance(Duration.ofSeconds(2));
            return limiter.tryAcquire("k");
        });
        for (int i = 0; i < 3; i++) {
            calls.add(() -> limiter.tryAcquire("k"));
        }
        List<Future<Decision>> decided = inQueueOrder(factory.batches(), calls);
        List<Decision> k = new ArrayList<>();
        for (Future<Decision> decision : decided.subList(2, decided.size())) {
            k.add(decision.get());
        }
        assertThat(k).extracting(Decision::source).containsOnly(DecisionSource.REDIS);
        assertThat(k).extracting(Decision::allowed).containsExactly(true, true, true, false, true, true, true, false);
        assertThat(k).extracting(Decision::remaining).containsExactly(2L, 1L, 0L, 0L, 2L, 1L, 0L, 0L);
        assertThat(k.get(3).retryAfter()).as("January's fourth, until midnight").isEqualTo(Duration.ofSeconds(1));
        assertThat(k.get(7).retryAfter()).as("February's fourth, until March")
            .isEqualTo(Duration.ofNanos((march - monthEnd.nowMicros()) * 1_000L));
        assertThat(factory.batches().calls()).as("two alone, then one batch of eight").isEqualTo(3);
        assertThat(factory.batches().batchedDecisions()).isEqualTo(8);
    }

    /**
     * Without a clock, the batch reads Redis TIME once and decides every decision at it: 16 requests
     * for one permit of a 5 per hour bucket, in batches, admit exactly 5, with 4 to 0 left.
     */
    @Test
    void withRedisTimeABatchDecidesEachDecisionAsAlone() throws Exception {
        RedisRateLimiterFactory factory = batchedFactory(slowTemplate(Duration.ofSeconds(2)), 64).build();
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofHours(1)));
        List<Callable<Decision>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            calls.add(() -> limiter.tryAcquire("k"));
        }
        List<Future<Decision>> decided = inQueueOrder(factory.batches(), calls);
        List<Long> remaining = new ArrayList<>();
        for (Future<Decision> decision : decided) {
            if (decision.get().allowed()) {
                remaining.add(decision.get().remaining());
            }
            assertThat(decision.get().source()).isEqualTo(DecisionSource.REDIS);
        }
        assertThat(remaining).containsExactlyInAnyOrder(4L, 3L, 2L, 1L, 0L);
        assertThat(factory.batches().batchedDecisions()).isEqualTo(14);
    }

    /** A decision that fails in Redis (its key holds a list, not a string) fails alone; the others of its batch are decided. */
    @Test
    void aDecisionRedisFailsInABatchGoesToItsPolicyAlone() throws Exception {
        StringRedisTemplate template = slowTemplate(Duration.ofSeconds(2));
        RedisRateLimiterFactory factory = batchedFactory(template, 64).clock(clock).failurePolicy(FailurePolicy.DENY).build();
        RedisRateLimiter limiter = (RedisRateLimiter) factory.create("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofSeconds(10)));
        TestRedisSupport.shared().opsForList().leftPush(limiter.redisKey("bad"), "not a bucket");
        List<Future<Decision>> decided = inQueueOrder(factory.batches(), List.of(() -> limiter.tryAcquire("a"), () -> limiter.tryAcquire("b"),
                () -> limiter.tryAcquire("k"), () -> limiter.tryAcquire("bad"), () -> limiter.tryAcquire("k")));
        assertThat(decided.get(2).get().source()).isEqualTo(DecisionSource.REDIS);
        assertThat(decided.get(3).get().source()).isEqualTo(DecisionSource.FAILURE_POLICY);
        assertThat(decided.get(4).get().source()).isEqualTo(DecisionSource.REDIS);
        assertThat(decided.get(4).get().remaining()).isEqualTo(3);
        assertThat(factory.batches().batchedDecisions()).isEqualTo(3);
        assertThat(factory.isRedisAvailable()).isTrue();
    }

    /**
     * Replies later than the command timeout: the two calls in flight time out, and the three decisions
     * queued behind them are not sent after them (which would hold their callers for another timeout):
     * all five go to the failure policy.
     */
    @Test
    void aBatchThatTimesOutGoesToTheFailurePolicyOfEveryCaller() throws Exception {
        TestRedis redis = TestRedis.shared();
        LatencyProxy proxy = LatencyProxy.start(redis.host(), redis.port());
        resources.add(proxy);
        StringRedisTemplate template = template(proxy, Duration.ofSeconds(2));
        RedisRateLimiterFactory factory = batchedFactory(template, 64).clock(clock).failurePolicy(FailurePolicy.DENY).build();
        factory.warmUp();
        resources.add(factory::close);
        // Closed before the factory, so that it leaves without waiting for late replies.
        resources.add(() -> proxy.delayReplies(Duration.ZERO));
        RateLimiter limiter = factory.create("orders", Algorithm.GCRA, LimitSpec.of(5, Duration.ofSeconds(10)));
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.REDIS);
        ScriptBatches batches = factory.batches();
        long before = batches.calls();
        proxy.delayReplies(Duration.ofSeconds(4));
        List<Future<Decision>> decided = inQueueOrder(batches, List.of(() -> limiter.tryAcquire("a"), () -> limiter.tryAcquire("b"),
                () -> limiter.tryAcquire("k"), () -> limiter.tryAcquire("k"), () -> limiter.tryAcquire("c")));
        for (Future<Decision> decision : decided) {
            assertThat(decision.get().source()).isEqualTo(DecisionSource.FAILURE_POLICY);
            assertThat(decision.get().allowed()).isFalse();
        }
        assertThat(batches.calls() - before).as("the queued decisions were not sent").isEqualTo(2);
    }

    /** A batch script Redis lost (SCRIPT FLUSH, a restart) is sent again with the same call: every decision still from Redis. */
    @Test
    void aBatchScriptRedisLostIsSentAgainInTheSameCall() throws Exception {
        TestRedis redis = TestRedis.start();
        resources.add(redis);
        Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may flush");
        LatencyProxy proxy = LatencyProxy.start(redis.host(), redis.port());
        resources.add(proxy);
        StringRedisTemplate template = template(proxy, Duration.ofSeconds(10));
        RedisRateLimiterFactory factory = batchedFactory(template, 64).clock(clock).failurePolicy(FailurePolicy.DENY).build();
        factory.warmUp();
        resources.add(factory::close);
        template.execute((RedisCallback<Void>) (connection) -> {
            connection.scriptingCommands().scriptFlush();
            return null;
        });
        proxy.delayReplies(Duration.ofSeconds(2));
        RateLimiter limiter = factory.create("orders", Algorithm.SLIDING_LOG, LimitSpec.of(5, Duration.ofSeconds(10)));
        List<Future<Decision>> decided = inQueueOrder(factory.batches(), List.of(() -> limiter.tryAcquire("a"), () -> limiter.tryAcquire("b"),
                () -> limiter.tryAcquire("k", 2), () -> limiter.tryAcquire("k", 2), () -> limiter.tryAcquire("k", 2)));
        assertThat(decided).extracting((f) -> f.get().source()).containsOnly(DecisionSource.REDIS);
        assertThat(decided).extracting((f) -> f.get().remaining()).containsExactly(4L, 4L, 3L, 1L, 1L);
        assertThat(decided.get(4).get().allowed()).isFalse();
        assertThat(factory.batches().batchedDecisions()).isEqualTo(3);
    }

    /**
     * Starts each of {@code calls} on its own thread once the one before has been sent (the first two,
     * which then fill both places in flight) or queued (the others), so that the queue holds them in
     * this order. The replies' delay must outlast this.
     */
    private <T> List<Future<T>> inQueueOrder(ScriptBatches batches, List<Callable<T>> calls) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        resources.add(pool::shutdownNow);
        List<Future<T>> futures = new ArrayList<>();
        long decisions = batches.decisions();
        long sent = batches.calls();
        for (int i = 0; i < calls.size(); i++) {
            futures.add(pool.submit(calls.get(i)));
            long inFlight = sent + Math.min(i + 1, ScriptBatches.IN_FLIGHT);
            // Counters only grow, so a wait never misses its moment, however slow this thread.
            while (batches.decisions() < decisions + i + 1 || batches.calls() < inFlight) {
                Thread.sleep(1);
            }
        }
        return futures;
    }

    /** A template whose replies come {@code delay} late, over a proxy in front of the shared test Redis. */
    private StringRedisTemplate slowTemplate(Duration delay) {
        TestRedis redis = TestRedis.shared();
        LatencyProxy proxy = LatencyProxy.start(redis.host(), redis.port());
        resources.add(proxy);
        StringRedisTemplate template = template(proxy, Duration.ofSeconds(20));
        // Connect before the delay, so that the connection's own commands are not held back.
        template.execute((RedisCallback<String>) (connection) -> connection.ping());
        proxy.delayReplies(delay);
        return template;
    }

    private StringRedisTemplate template(LatencyProxy proxy, Duration timeout) {
        Assumptions.assumeTrue(TestRedis.shared().source() != TestRedis.Source.URL || !TestRedis.shared().url().contains("@"),
                "the proxy template carries no credentials");
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
                LettuceClientConfiguration.builder().commandTimeout(timeout).shutdownTimeout(Duration.ZERO).build());
        connections.afterPropertiesSet();
        connections.start();
        resources.add(connections::destroy);
        return TestRedisSupport.template(connections);
    }

    private RedisRateLimiterFactory.Builder batchedFactory(StringRedisTemplate template, int maxBatchSize) {
        return RedisRateLimiterFactory.builder(template).keyPrefix(TestRedisSupport.uniquePrefix()).expectedInstances(1).batching(maxBatchSize);
    }

    /** A Redis factory and an in-memory one on the same clock. */
    private record RateLimiterFactoryPair(RedisRateLimiterFactory redis, RateLimiterFactory memory) {
    }
}
