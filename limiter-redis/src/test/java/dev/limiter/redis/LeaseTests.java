package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Local leasing of hot keys: an instance deciding a key again within the lease's ttl takes a few
 * more permits in the same script and hands them out itself. Redis counts them when taken, so no
 * number of instances and threads admits more than the algorithm does; one script call covers a
 * whole lease, leases expire after their ttl, cold keys never lease, and a retune starts leases afresh.
 */
@RedisTest
@Timeout(120)
class LeaseTests {

    /**
     * 100 per hour, a bucket of 100: so slow that time standing still or moving by seconds makes no
     * difference, and no key expires in Redis' own (real) time while the virtual clock stands still.
     */
    static final LimitSpec HUNDRED_PER_HOUR = LimitSpec.of(100, Duration.ofHours(1));

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    final Map<DecisionSource, AtomicLong> heard = new ConcurrentHashMap<>();

    /** One instance of the application: its own factory (and so its own leases) on the shared Redis and clock. */
    RedisRateLimiterFactory instance() {
        return RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix).clock(clock)
            .listener((event) -> heard.computeIfAbsent(event.decision().source(), (source) -> new AtomicLong()).incrementAndGet())
            .build();
    }

    static RateLimiterConfig leasing(Algorithm algorithm, long permits, Duration ttl) {
        return RateLimiterConfig.builder(algorithm).limit(HUNDRED_PER_HOUR).lease(permits, ttl).build();
    }

    long heard(DecisionSource source) {
        AtomicLong count = heard.get(source);
        return (count != null) ? count.get() : 0;
    }

    /**
     * A settlement of a leased key goes straight to Redis (docs/settled-costs.md): a charge beyond the
     * limit puts Redis' state into debt at once, which another instance sees; the permits this instance
     * leased before are still its own to hand out, and no more.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void aSettlementOfALeasedKeyGoesToRedisAndLeavesTheLeaseAlone(Algorithm algorithm) {
        RateLimiter leasing = instance().create("settled", leasing(algorithm, 10, Duration.ofSeconds(30)));
        RateLimiter other = instance().create("settled", leasing(algorithm, 10, Duration.ofSeconds(30)));
        // The second call finds the key hot and leases 10 more: 1 + 1 + 10 taken in Redis.
        assertThat(leasing.tryAcquire("k").allowed()).isTrue();
        assertThat(leasing.tryAcquire("k").allowed()).isTrue();
        assertThat(leasing.quota("k").remaining()).isEqualTo(88);
        // Reserved 1, cost 150: 149 more, 61 beyond the 88 left.
        assertThat(leasing.settle("k", 1, 150).remaining()).isZero();
        assertThat(other.tryAcquire("k").allowed()).as("the other instance sees the debt").isFalse();
        long fromLease = 0;
        while (leasing.tryAcquire("k").allowed()) {
            fromLease++;
        }
        assertThat(fromLease).as("what was leased before the charge, and nothing from Redis").isEqualTo(10);
    }

    /**
     * Four instances, eight threads each, flooding one key while time moves on in steps: at the end
     * of every step the instances together have admitted no more than the algorithm's twin admits to
     * a caller taking every permit it can at the same instants, and most decisions never reached Redis.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void manyInstancesAndThreadsOnAHotKeyNeverAdmitMoreThanTheAlgorithm(Algorithm algorithm) throws Exception {
        // 10 permits a second, a bucket of 200: 10 more each step, against 320 calls. (Slow enough that
        // no key expires in Redis' real time while the virtual clock stands still.)
        RateLimiterConfig config = RateLimiterConfig.builder(algorithm).limit(new LimitSpec(100, Duration.ofSeconds(10), 200))
            .lease(8, Duration.ofSeconds(3)).build();
        List<RedisRateLimiter> instances = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            instances.add((RedisRateLimiter) instance().create("hot", config));
        }
        RateLimiter twin = InMemoryRateLimiterFactory.builder().clock(clock).build().create("hot", config.withLease(null));
        long admitted = 0;
        long allowedByTwin = 0;
        long decisions = 0;
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            for (int step = 0; step < 12; step++) {
                List<Future<Long>> counts = new ArrayList<>();
                for (int thread = 0; thread < 8; thread++) {
                    counts.add(threads.submit(() -> {
                        long allowed = 0;
                        for (int call = 0; call < 40; call++) {
                            RedisRateLimiter instance = instances.get(ThreadLocalRandom.current().nextInt(instances.size()));
                            if (instance.tryAcquire("k").allowed()) {
                                allowed++;
                            }
                        }
                        return allowed;
                    }));
                }
                for (Future<Long> count : counts) {
                    admitted += count.get(60, TimeUnit.SECONDS);
                }
                decisions += 8 * 40;
                // The twin, asked for every permit it has at this instant: the most the algorithm admits by now.
                while (twin.tryAcquire("k").allowed()) {
                    allowedByTwin++;
                }
                assertThat(admitted).as("admitted by the end of step %d", step).isLessThanOrEqualTo(allowedByTwin);
                clock.advance(Duration.ofSeconds(1));
            }
        }
        finally {
            threads.shutdownNow();
        }
        long scripts = instances.stream().mapToLong(RedisRateLimiter::scriptCalls).sum();
        assertThat(heard(DecisionSource.LEASE)).as("decisions handed out from leases").isPositive();
        assertThat(heard(DecisionSource.REDIS) + heard(DecisionSource.LEASE)).isEqualTo(decisions);
        assertThat(scripts).as("round trips").isEqualTo(heard(DecisionSource.REDIS)).isLessThan(decisions);
        // Unused leases expire: at most 8 permits per instance per 3 s are lost, 4 × 8 × 4 in 12 s.
        assertThat(admitted).isGreaterThanOrEqualTo(allowedByTwin - 4 * 8 * 4);
    }

    /**
     * One instance, time standing still: the first call is cold; every call on the key after it that
     * goes to Redis leases 10 more permits, which the next 10 calls get without a script. The calls
     * are told the same remaining counts as without leasing, and Redis ends where they say.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void oneScriptCallPerLeaseAndTheRemainingCountsOfPlainDecisions(Algorithm algorithm) {
        RedisRateLimiter limiter = (RedisRateLimiter) instance().create("hot", leasing(algorithm, 10, Duration.ofSeconds(1)));
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            decisions.add(limiter.tryAcquire("k"));
        }
        assertThat(decisions).allMatch(Decision::allowed);
        assertThat(decisions).extracting(Decision::remaining).containsExactlyElementsOf(countDown(99));
        assertThat(decisions).extracting(Decision::source).filteredOn(DecisionSource.LEASE::equals).hasSize(90);
        // The cold call, then 9 leases of 10 beyond the caller's own permit.
        assertThat(limiter.scriptCalls()).isEqualTo(10);
        assertThat(decisions.get(5).resetAfter()).as("reset-after of the state with the whole lease taken").isPositive();

        Decision rejected = limiter.tryAcquire("k");
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.source()).as("only Redis rejects").isEqualTo(DecisionSource.REDIS);
        assertThat(limiter.scriptCalls()).isEqualTo(11);
        assertThat(limiter.quota("k").remaining()).isZero();
    }

    private static List<Long> countDown(long from) {
        List<Long> counts = new ArrayList<>();
        for (long i = from; i >= 0; i--) {
            counts.add(i);
        }
        return counts;
    }

    /**
     * A lease is handed out for its ttl after the call that took it was sent, then expires: the next
     * call goes to Redis, and the permits left unused stay taken there, so the key gets fewer.
     */
    @Test
    void aLeaseExpiresAfterItsTtlAndItsUnusedPermitsStayTaken() {
        RedisRateLimiter limiter = (RedisRateLimiter) instance().create("hot", leasing(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k");
        clock.advance(Duration.ofMillis(500));
        assertThat(limiter.tryAcquire("k").source()).as("hot: leases 10").isEqualTo(DecisionSource.REDIS);
        assertThat(limiter.leased("k")).isEqualTo(10);
        clock.advance(Duration.ofMillis(999));
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.LEASE);
        }
        assertThat(limiter.leased("k")).isEqualTo(7);
        assertThat(limiter.scriptCalls()).isEqualTo(2);

        clock.advanceMicros(1_000);
        assertThat(limiter.leased("k")).as("1 s after the lease call was sent").isZero();
        Decision next = limiter.tryAcquire("k");
        assertThat(next.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(limiter.scriptCalls()).isEqualTo(3);
        // 99 after the first call, 11 taken at 0.5 s: 88, the 7 unused among them. This call is hot (the
        // last was 1 ms ago): it takes 1 and leases 10 again, which its remaining includes.
        assertThat(next.remaining()).isEqualTo(87);
        assertThat(limiter.leased("k")).isEqualTo(10);
    }

    /** Keys decided no more than once per ttl on an instance never lease: no permits of theirs are held back. */
    @Test
    void coldKeysNeverLease() {
        RedisRateLimiter limiter = (RedisRateLimiter) instance().create("cold", leasing(Algorithm.GCRA, 10, Duration.ofMillis(100)));
        for (int round = 0; round < 5; round++) {
            for (int key = 0; key < 50; key++) {
                Decision decision = limiter.tryAcquire("k" + key);
                assertThat(decision.remaining()).isEqualTo(99 - round);
                assertThat(limiter.leased("k" + key)).isZero();
            }
            clock.advance(Duration.ofMillis(100));
        }
        assertThat(heard(DecisionSource.LEASE)).isZero();
        assertThat(limiter.scriptCalls()).isEqualTo(250);
    }

    /** Many threads finding a hot key's lease empty together lease once; the others ask Redis plainly. */
    @Test
    void oneLeaseCallAtATimePerKey() throws Exception {
        RedisRateLimiter limiter = (RedisRateLimiter) instance().create("hot", RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET)
            .limit(new LimitSpec(100, Duration.ofHours(1), 100_000)).lease(5, Duration.ofSeconds(1)).build());
        List<Decision> decisions = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int thread = 0; thread < 8; thread++) {
                done.add(threads.submit(() -> {
                    for (int call = 0; call < 200; call++) {
                        decisions.add(limiter.tryAcquire("k"));
                    }
                }));
            }
            for (Future<?> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
        // Time stands still: every permit taken in Redis was handed out, or is still leased here.
        long taken = 100_000 - limiter.quota("k").remaining();
        assertThat(taken).isEqualTo(decisions.size() + limiter.leased("k"));
        assertThat(limiter.leased("k")).isLessThanOrEqualTo(5);
        assertThat(decisions).allMatch(Decision::allowed);
    }

    /** A retune starts leases afresh under the new configuration, and one without a lease decides every call in Redis. */
    @Test
    void aRetuneStartsLeasesAfresh() {
        RedisRateLimiter limiter = (RedisRateLimiter) instance().create("hot", leasing(Algorithm.LEAKY_BUCKET, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k");
        limiter.tryAcquire("k");
        assertThat(limiter.leased("k")).isEqualTo(10);

        limiter.retune(leasing(Algorithm.LEAKY_BUCKET, 3, Duration.ofSeconds(1)));
        assertThat(limiter.leased("k")).as("the old lease is left to expire").isZero();
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.REDIS);
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.REDIS);
        assertThat(limiter.leased("k")).as("the new lease's size").isEqualTo(3);

        limiter.retune(leasing(Algorithm.LEAKY_BUCKET, 3, Duration.ofSeconds(1)).withLease(null));
        long scripts = limiter.scriptCalls();
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.REDIS);
        }
        assertThat(limiter.scriptCalls()).isEqualTo(scripts + 10);
        assertThat(limiter.leased("k")).isZero();
    }

    /** A reset forgets the key's lease: permits leased from the deleted state would come on top of the fresh one's. */
    @Test
    void aResetForgetsTheLease() {
        RedisRateLimiter limiter = (RedisRateLimiter) instance().create("hot", leasing(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k");
        limiter.tryAcquire("k");
        assertThat(limiter.leased("k")).isEqualTo(10);
        limiter.reset("k");
        assertThat(limiter.leased("k")).isZero();
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(99);
    }

    /** A call admitted to wait leaves no permits, so it leases none: a lease never borrows from the future. */
    @Test
    void aWaitingCallerLeasesNothing() {
        RedisRateLimiter limiter = (RedisRateLimiter) instance().create("hot", RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET)
            .limit(LimitSpec.of(2, Duration.ofSeconds(1))).maxWait(Duration.ofSeconds(5)).lease(10, Duration.ofSeconds(1)).build());
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(1);
        Decision leasing = limiter.tryAcquire("k");
        assertThat(leasing.waitFor()).isZero();
        assertThat(leasing.remaining()).isZero();
        assertThat(limiter.leased("k")).as("no permit left to lease").isZero();
        Decision waiting = limiter.tryAcquire("k");
        assertThat(waiting.allowed()).isTrue();
        assertThat(waiting.waitFor()).isEqualTo(Duration.ofMillis(500));
        assertThat(limiter.leased("k")).isZero();
    }

    /** Asynchronous decisions lease and hand out leases alike. */
    @Test
    void asynchronousDecisionsLeaseToo() {
        RedisRateLimiter limiter = (RedisRateLimiter) RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix)
            .clock(clock).reactiveRedis(TestRedisSupport.sharedReactive()).build()
            .create("hot", leasing(Algorithm.GCRA, 10, Duration.ofSeconds(1)));
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            decisions.add(limiter.tryAcquireAsync("k").toCompletableFuture().join());
        }
        assertThat(decisions).extracting(Decision::remaining).containsExactlyElementsOf(countDown(99).subList(0, 23));
        assertThat(decisions).extracting(Decision::source).filteredOn(DecisionSource.LEASE::equals).hasSize(20);
        assertThat(limiter.scriptCalls()).isEqualTo(3);
    }
}
