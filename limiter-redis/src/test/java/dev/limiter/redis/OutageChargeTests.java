package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisControl;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Every permit admitted without Redis is charged to Redis when it answers again, before this instance
 * decides on Redis for that key: an outage never hands out a second limit. The outages are real, on a
 * private redis-server: it refuses the limiters' credentials (NOAUTH), runs out of memory (OOM), or
 * drops their connection; time is the test's clock, so windows never pass on their own.
 */
@RedisTest
@Timeout(120)
class OutageChargeTests {

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    /** The password the tests make Redis ask for: the limiters' connection does not know it. */
    static final String PASSWORD = "limiter-test-outage";

    PrivateRedis server;

    TestRedis redis;

    StringRedisTemplate template;

    /** A connection of the test's own, to make the faults: CLIENT KILL spares it, and it stays logged in. */
    RedisControl admin;

    final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START);

    final String prefix = TestRedisSupport.uniquePrefix();

    @BeforeEach
    void startPrivateRedis() {
        // As the auto-configured connection: reconnects at most 100 ms apart.
        server = PrivateRedis.start(Duration.ofMillis(500), Delay.exponential(Duration.ZERO, Duration.ofMillis(100), 2, TimeUnit.MILLISECONDS));
        redis = server.redis;
        template = server.template;
        admin = RedisControl.of(redis);
    }

    @AfterEach
    void stopPrivateRedis() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    RedisRateLimiterFactory factory(FailurePolicy policy) {
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(template)
            .keyPrefix(prefix)
            .clock(clock)
            .failurePolicy(policy)
            .probeInterval(Duration.ofMillis(50))
            .localLimiters(InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(1000).build())
            .build();
        factory.warmUp();
        return factory;
    }

    /**
     * The outage case of issue 23: a fresh key, Redis refusing the limiters' credentials while a user
     * keeps calling, then answering again. Before, the user got the limit from the local policy and a
     * second one from Redis after; now what the policy admitted is charged first, and the user gets
     * the limit once in all.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void whatTheLocalPolicyAdmittedDuringAnOutageIsChargedSoTheLimitHoldsOverBoth(Algorithm algorithm) throws InterruptedException {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL);
        RateLimiter limiter = factory.create("orders", algorithm, FIVE_PER_10S);

        refuseCredentials();
        // A call that fails before Redis counts as out is rejected (it may have run in Redis).
        awaitOut(factory, limiter);
        int admitted = 0;
        List<DecisionSource> sources = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Decision decision = limiter.tryAcquire("fresh");
            sources.add(decision.source());
            admitted += decision.allowed() ? 1 : 0;
        }
        assertThat(sources).as("decided without Redis").doesNotContain(DecisionSource.REDIS);
        // The client's attempts to reconnect hear NOAUTH: the next failed call makes it an outage.
        awaitTrue(() -> limiter.tryAcquire("another").source() != DecisionSource.REDIS && !factory.isRedisAvailable(), "out");
        assertThat(factory.unavailableReason()).as("why, for health").contains("NOAUTH");
        assertThat(admitted).as("the local policy's share: the whole limit of one instance").isEqualTo(5);

        acceptCredentials();
        awaitTrue(factory::isRedisAvailable, "back on Redis");
        awaitTrue(() -> factory.unchargedKeys() == 0, "charged");
        for (int i = 0; i < 8; i++) {
            Decision decision = limiter.tryAcquire("fresh");
            assertThat(decision.source()).isEqualTo(DecisionSource.REDIS);
            admitted += decision.allowed() ? 1 : 0;
        }
        assertThat(admitted).as("admitted over the outage and after it, in one window: the limit once").isEqualTo(5);
        assertThat(factory.unavailableReason()).isNull();
        factory.close();
    }

    @Test
    void allowChargesWhatItAdmittedToo() throws InterruptedException {
        RedisRateLimiterFactory factory = factory(FailurePolicy.ALLOW);
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, FIVE_PER_10S);
        refuseCredentials();
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        }
        acceptCredentials();
        awaitTrue(() -> factory.isRedisAvailable() && factory.unchargedKeys() == 0, "back on Redis, charged");
        Decision fromRedis = limiter.tryAcquire("k");
        assertThat(fromRedis.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(fromRedis.remaining()).as("3 charged, 1 taken now").isEqualTo(1);
        factory.close();
    }

    @Test
    void denyAdmitsNothingSoOwesNothing() throws InterruptedException {
        RedisRateLimiterFactory factory = factory(FailurePolicy.DENY);
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, FIVE_PER_10S);
        refuseCredentials();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        awaitTrue(() -> !limiter.tryAcquire("k").allowed() && !factory.isRedisAvailable(), "out");
        assertThat(factory.unchargedKeys()).isZero();
        acceptCredentials();
        awaitTrue(factory::isRedisAvailable, "back on Redis");
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
        factory.close();
    }

    /** Permits that weigh no more on the key's state by the time Redis answers are not charged at all. */
    @Test
    void permitsOlderThanTheWindowAreNotCharged() throws InterruptedException {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL);
        RateLimiter limiter = factory.create("orders", Algorithm.SLIDING_LOG, FIVE_PER_10S);
        refuseCredentials();
        awaitOut(factory, limiter);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        }
        clock.advance(Duration.ofSeconds(21));
        acceptCredentials();
        awaitTrue(() -> factory.isRedisAvailable() && factory.unchargedKeys() == 0, "back on Redis, charged");
        assertThat(limiter.tryAcquire("k").remaining()).as("a whole window later, nothing of the outage weighs").isEqualTo(4);
        factory.close();
    }

    /**
     * A connection dropped between calls (a proxy closing idle connections, CLIENT KILL) is no outage:
     * the client connects again at once and the next call goes to Redis.
     */
    @Test
    void aDroppedConnectionIsNoOutage() throws InterruptedException {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL);
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.REDIS);
        for (int drop = 0; drop < 5; drop++) {
            assertThat(admin.ok("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")).as("connections dropped").isNotEqualTo(0L);
            // Between calls: the client notices and connects again, at its first attempt.
            awaitTrue(() -> ((String) admin.ok("CLIENT", "LIST", "TYPE", "normal")).lines().count() >= 2, "reconnected");
            Decision decision = limiter.tryAcquire("k");
            assertThat(decision.source()).as("after drop %d", drop + 1).isEqualTo(DecisionSource.REDIS);
        }
        assertThat(factory.isRedisAvailable()).isTrue();
        assertThat(factory.unchargedKeys()).isZero();
        factory.close();
    }

    /**
     * A call on its way when its connection drops may have run in Redis or not, and is never sent
     * again. Under the local policy it is rejected: a share admitted now could be spent again by another
     * instance deciding on Redis before its charge lands. Here it never ran (Redis held it, paused), so
     * the rejection is a permit too few; and the next call goes to Redis.
     */
    @Test
    void aCallOnItsWayWhenItsConnectionDropsIsRejectedAndNeverSentAgain() throws Exception {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL);
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            // Scripts that may write wait in Redis, unrun, until the pause ends.
            admin.ok("CLIENT", "PAUSE", "5000", "WRITE");
            Future<Decision> onItsWay = caller.submit(() -> limiter.tryAcquire("k"));
            awaitTrue(() -> Long.parseLong(admin.info("clients", "blocked_clients")) > 0, "the call held by Redis");
            admin.ok("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
            admin.ok("CLIENT", "UNPAUSE");
            Decision dropped = onItsWay.get(5, TimeUnit.SECONDS);
            assertThat(dropped.allowed()).as("rejected: it may have run").isFalse();
            assertThat(dropped.source()).isEqualTo(DecisionSource.LOCAL_FALLBACK);
        }
        finally {
            caller.shutdownNow();
        }
        assertThat(factory.isRedisAvailable()).as("a dropped connection is no outage").isTrue();
        awaitTrue(() -> ((String) admin.ok("CLIENT", "LIST", "TYPE", "normal")).lines().count() >= 2, "reconnected");
        Decision next = limiter.tryAcquire("k");
        assertThat(next.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(next.remaining()).as("the dropped call never ran, nor was it sent again").isEqualTo(3);
        factory.close();
    }


    /**
     * A call that times out while Redis still counts as in use (one slow call is no outage) is rejected
     * under the local policy: its script may run in Redis, or Redis may reject it, and a share
     * admitted for it could be spent again by another instance. Here it ran once Redis resumed: a
     * permit too few, never one too many.
     */
    @Test
    void aCallThatTimesOutWhileRedisIsInUseIsRejected() {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL);
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
        redis.pause();
        Decision timedOut;
        try {
            timedOut = limiter.tryAcquire("k");
        }
        finally {
            redis.resume();
        }
        assertThat(timedOut.allowed()).as("rejected: it may run in Redis, or be rejected there").isFalse();
        assertThat(timedOut.source()).isEqualTo(DecisionSource.LOCAL_FALLBACK);
        assertThat(factory.isRedisAvailable()).as("one slow call is no outage").isTrue();
        assertThat(factory.unchargedKeys()).as("nothing admitted, nothing owed").isZero();
        Decision next = limiter.tryAcquire("k");
        assertThat(next.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(next.remaining()).as("the timed-out script ran once Redis resumed, and was never sent again").isEqualTo(2);
        factory.close();
    }

    /**
     * Out of memory: decisions that would write fail (OOM), those that only read still succeed; the
     * probe is refused like a writing decision, so Redis stays out until writes succeed again, without
     * flapping between out and in.
     */
    @Test
    void anOutOfMemoryRedisIsOutUntilDecisionsCanWriteAgainWithoutFlapping() throws InterruptedException {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL);
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(1, Duration.ofSeconds(10)));
        assertThat(limiter.tryAcquire("full").allowed()).isTrue();
        assertThat(limiter.tryAcquire("full").allowed()).as("a rejection: nothing written").isFalse();
        admin.ok("CONFIG", "SET", "maxmemory-policy", "noeviction");
        admin.ok("CONFIG", "SET", "maxmemory", "1");
        try {
            Decision decision = limiter.tryAcquire("new-key");
            assertThat(decision.source()).isEqualTo(DecisionSource.LOCAL_FALLBACK);
            assertThat(factory.isRedisAvailable()).as("OOM is an outage at once").isFalse();
            assertThat(factory.unavailableReason()).contains("OOM");
            // Ten probe intervals: a probe that wrote nothing would have succeeded and flapped.
            for (int i = 0; i < 10; i++) {
                Thread.sleep(50);
                assertThat(factory.isRedisAvailable()).as("still out after %d probe intervals", i + 1).isFalse();
            }
        }
        finally {
            admin.ok("CONFIG", "SET", "maxmemory", "0");
        }
        awaitTrue(factory::isRedisAvailable, "back once writes succeed");
        assertThat(factory.unavailableReason()).isNull();
        factory.close();
    }

    /** After an outage of any length, decisions are back on Redis within a second of it answering. */
    @Test
    void backOnRedisWithinASecondAfterALongOutage() throws InterruptedException {
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(template)
            .keyPrefix(prefix)
            .clock(clock)
            .localLimiters(InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(1000).build())
            .build();
        factory.warmUp();
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        refuseCredentials();
        limiter.tryAcquire("k");
        awaitTrue(() -> !factory.isRedisAvailable(), "out");
        // 30 s refused: Lettuce's own backoff would have grown to its 30 s maximum by then.
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < end) {
            limiter.tryAcquire("k");
            Thread.sleep(200);
        }
        assertThat(factory.isRedisAvailable()).isFalse();
        acceptCredentials();
        long answered = System.nanoTime();
        awaitTrue(factory::isRedisAvailable, "back on Redis");
        Duration back = Duration.ofNanos(System.nanoTime() - answered);
        assertThat(back).as("back on Redis after it answered").isLessThan(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.REDIS);
        factory.close();
    }

    /**
     * Two instances share a key and an outage; the first back charges what it admitted, but the other
     * has not yet: until it has, the first stays within its share though Redis would admit more. In
     * all, the limit once: 2 before, 4 + 4 during, none after.
     */
    @Test
    void anInstanceBackFirstStaysWithinItsShareUntilTheOtherHasCharged() throws InterruptedException {
        RedisRateLimiterFactory first = instance(Duration.ofMillis(50));
        RedisRateLimiterFactory late = instance(Duration.ofSeconds(2));
        // Each counts both once it has beaten after the other's first heartbeat.
        awaitTrue(() -> first.instances() == 2 && late.instances() == 2, "two instances counted");
        RateLimiter a = first.create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(10, Duration.ofSeconds(10)));
        RateLimiter b = late.create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(10, Duration.ofSeconds(10)));
        int admitted = 0;
        admitted += a.tryAcquire("hot").allowed() ? 1 : 0;
        admitted += b.tryAcquire("hot").allowed() ? 1 : 0;

        refuseCredentials();
        awaitOut(first, a);
        awaitOut(late, b);
        for (int i = 0; i < 6; i++) {
            admitted += a.tryAcquire("hot").allowed() ? 1 : 0;
            admitted += b.tryAcquire("hot").allowed() ? 1 : 0;
        }
        assertThat(admitted).as("2 from Redis, then each instance's share of the 8 left").isEqualTo(10);

        acceptCredentials();
        awaitTrue(first::isRedisAvailable, "first back");
        assertThat(late.isRedisAvailable()).as("the other probes later").isFalse();
        for (int i = 0; i < 5; i++) {
            Decision decision = a.tryAcquire("hot");
            assertThat(decision.allowed()).as("Redis holds 4 left, but the other instance owes 4: call %d", i + 1).isFalse();
        }
        awaitTrue(() -> late.isRedisAvailable() && late.unchargedKeys() == 0, "the other back and charged");
        for (int i = 0; i < 5; i++) {
            admitted += a.tryAcquire("hot").allowed() ? 1 : 0;
            admitted += b.tryAcquire("hot").allowed() ? 1 : 0;
        }
        assertThat(admitted).as("admitted in all, in one window of 10").isEqualTo(10);
        first.close();
        late.close();
    }

    /** Calls another key until the instance counts Redis as out: a call must fail to tell it. */
    /**
     * An instance that stops beating (cut off from Redis while this one reaches it, deciding by its
     * shares) is found silent within two heartbeats: this one keeps within its share of the limit
     * though Redis would admit more, until the silent one says it charged, or no longer counts.
     */
    @Test
    void whileAnotherInstanceIsSilentThisOneKeepsWithinItsShare() throws InterruptedException {
        RedisRateLimiterFactory factory = instance(Duration.ofMillis(50));
        InstanceRegistry other = new InstanceRegistry(template, prefix, RedisRateLimiterFactory.DEFAULT_HEARTBEAT_INTERVAL, clock, 0);
        other.beat(true);
        awaitTrue(() -> factory.instances() == 2, "two instances counted");
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(10, Duration.ofSeconds(10)));
        assertThat(limiter.tryAcquire("hot").remaining()).as("Redis alone decides").isEqualTo(9);
        assertThat(factory.isSettling()).isFalse();

        // The other misses its heartbeats; the bucket refills 2 meanwhile, back to full.
        clock.advance(RedisRateLimiterFactory.DEFAULT_HEARTBEAT_INTERVAL.multipliedBy(InstanceRegistry.SILENT_HEARTBEATS + 1));
        awaitTrue(factory::isSettling, "the other found silent");
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            admitted += limiter.tryAcquire("hot").allowed() ? 1 : 0;
        }
        assertThat(admitted).as("this instance's share of the 10 Redis holds: the other may be admitting its own").isEqualTo(5);

        awaitTrue(() -> other.beat(true) && !factory.isSettling(), "the other beats again, owing nothing: limits are Redis' alone again");
        // The calls the share rejected were counted in Redis all the same (a permit too few, never one
        // too many): the bucket is empty. 3 s refill 3, all Redis' own now; a share would hold 1.
        clock.advance(Duration.ofSeconds(3));
        for (int i = 0; i < 3; i++) {
            Decision decision = limiter.tryAcquire("hot");
            assertThat(decision.allowed()).as("call %d", i + 1).isTrue();
            assertThat(decision.source()).isEqualTo(DecisionSource.REDIS);
        }
        assertThat(limiter.tryAcquire("hot").allowed()).isFalse();
        other.leave();
        factory.close();
    }

    /** Until the instance is out, and the others have had the time to find it silent: it decides by its shares. */
    private static void awaitOut(RedisRateLimiterFactory instance, RateLimiter limiter) throws InterruptedException {
        awaitTrue(() -> {
            limiter.tryAcquire("other");
            return !instance.isRedisAvailable() && instance.othersKeepToShares();
        }, "out");
    }

    private RedisRateLimiterFactory instance(Duration probeInterval) {
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(template)
            .keyPrefix(prefix)
            .clock(clock)
            .probeInterval(probeInterval)
            .localLimiters(InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(1000).build())
            .build();
        factory.warmUp();
        return factory;
    }

    /** Redis asks for a password the limiters do not know, and drops their connection: they cannot reconnect. */
    private void refuseCredentials() {
        admin.requirePassword(PASSWORD);
        admin.ok("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    }

    private void acceptCredentials() {
        admin.requirePassword("");
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for: " + what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
