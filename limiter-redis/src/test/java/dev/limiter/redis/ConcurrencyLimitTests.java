package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Concurrency limits in Redis: several limiters, each on a connection of its own like instances of an
 * application, never let more than the limit of calls run at once; a slot is released when its permit
 * closes, renewed while it is open, and comes back after the lease when its holder died.
 */
@RedisTest
@Timeout(120)
class ConcurrencyLimitTests {

    static final Duration LEASE = Duration.ofSeconds(10);

    final String prefix = TestRedisSupport.uniquePrefix();

    final StringRedisTemplate template = TestRedisSupport.shared();

    final VirtualClock clock = new VirtualClock();

    final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
    }

    /** The connections of the limiter {@link #instance} made last. */
    LettuceConnectionFactory lastConnections;

    /** A limiter as another instance would have it: a connection and a factory of its own. */
    RedisConcurrencyLimiter instance(ConcurrencyLimiterConfig config, VirtualClock clockOrNull) {
        LettuceConnectionFactory connections = TestRedisSupport.connectionFactory(TestRedis.shared(),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        toClose.add(connections::destroy);
        lastConnections = connections;
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(TestRedisSupport.template(connections))
            .keyPrefix(prefix).failurePolicy(FailurePolicy.DENY).expectedInstances(1).localLimiters(new InMemoryRateLimiterFactory());
        if (clockOrNull != null) {
            builder.clock(clockOrNull);
        }
        RedisRateLimiterFactory factory = builder.build();
        toClose.add(factory::close);
        return (RedisConcurrencyLimiter) factory.createConcurrencyLimiter("calls", config);
    }

    @Test
    void instancesTogetherNeverRunMoreThanTheLimitAtOnce() throws Exception {
        int limit = 3;
        ConcurrencyLimiterConfig config = ConcurrencyLimiterConfig.of(limit).withMaxWait(Duration.ofSeconds(20));
        List<RedisConcurrencyLimiter> instances = List.of(instance(config, null), instance(config, null), instance(config, null));
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(12);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> calls = new ArrayList<>();
        for (int t = 0; t < 12; t++) {
            ConcurrencyLimiter limiter = instances.get(t % instances.size());
            calls.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 10; i++) {
                    try (Permit permit = limiter.acquire("upstream")) {
                        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        // A call of known length, the work the slot is for.
                        Thread.sleep(5);
                        inFlight.decrementAndGet();
                        done.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> call : calls) {
            call.get(100, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertThat(done.get()).isEqualTo(120);
        assertThat(most.get()).as("most calls in flight at once").isEqualTo(limit);
        assertThat(instances).allSatisfy((instance) -> assertThat(instance.inUse()).isZero());
        assertThat(TestRedisSupport.exists(template, instances.get(0).redisKey("upstream"))).as("the last release deletes the key").isFalse();
    }

    @Test
    void aFreedSlotIsTakenAgainAndKeysAreOthersSlots() {
        ConcurrencyLimiter a = instance(ConcurrencyLimiterConfig.of(2).withLease(LEASE), clock);
        ConcurrencyLimiter b = instance(ConcurrencyLimiterConfig.of(2).withLease(LEASE), clock);
        Permit first = a.tryAcquire("k").orElseThrow();
        Permit second = b.tryAcquire("k").orElseThrow();
        assertThat(a.tryAcquire("k")).isEmpty();
        assertThat(b.tryAcquire("other")).as("another key has slots of its own").isPresent();
        assertThat(a.inUse()).isEqualTo(1);
        first.close();
        first.close();
        assertThat(a.inUse()).isZero();
        Permit third = b.tryAcquire("k").orElseThrow();
        assertThat(a.tryAcquire("k")).as("closing twice released one slot").isEmpty();
        second.close();
        third.close();
    }

    @Test
    void theSlotOfAHolderThatDiedComesBackAfterTheLease() {
        RedisConcurrencyLimiter dying = instance(ConcurrencyLimiterConfig.of(2).withLease(LEASE), clock);
        RedisConcurrencyLimiter other = instance(ConcurrencyLimiterConfig.of(2).withLease(LEASE), clock);
        dying.tryAcquire("k").orElseThrow();
        dying.tryAcquire("k").orElseThrow();
        // It dies: it renews nothing any more and never releases.
        dying.close();
        clock.advance(LEASE.minusMillis(1));
        assertThat(other.tryAcquire("k")).as("within the lease").isEmpty();
        clock.advance(Duration.ofMillis(1));
        Optional<Permit> back = other.tryAcquire("k");
        assertThat(back).as("once the lease ran out").isPresent();
        assertThat(other.tryAcquire("k")).as("both slots came back").isPresent();
        assertThat(other.tryAcquire("k")).isEmpty();
    }

    @Test
    void aRunningCallRenewsItsLeaseAndKeepsItsSlot() {
        RedisConcurrencyLimiter holder = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE), clock);
        RedisConcurrencyLimiter other = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE), clock);
        Permit running = holder.tryAcquire("k").orElseThrow();
        for (int i = 0; i < 5; i++) {
            clock.advance(LEASE.dividedBy(3));
            holder.renewNow();
        }
        assertThat(other.tryAcquire("k")).as("five thirds of a lease later, renewed").isEmpty();
        running.close();
        assertThat(other.tryAcquire("k")).isPresent();
    }

    @Test
    void aSlotWhoseLeaseRanOutIsNotRenewedBack() {
        RedisConcurrencyLimiter late = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE), clock);
        RedisConcurrencyLimiter other = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE), clock);
        late.tryAcquire("k").orElseThrow();
        clock.advance(LEASE);
        // The late holder's slot is given to another call, and only then does its renewal arrive.
        Permit taken = other.tryAcquire("k").orElseThrow();
        late.renewNow();
        taken.close();
        assertThat(other.tryAcquire("k")).as("the late holder's renewal took no slot back").isPresent();
    }

    @Test
    void aReleaseThatFailsLeavesTheSlotToItsLease() {
        RedisConcurrencyLimiter cutOff = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE), clock);
        LettuceConnectionFactory itsConnections = lastConnections;
        RedisConcurrencyLimiter other = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE), clock);
        Permit permit = cutOff.tryAcquire("k").orElseThrow();
        itsConnections.destroy();
        // Redis never hears of it; the caller is not bothered either.
        permit.close();
        assertThat(cutOff.inUse()).isZero();
        cutOff.renewNow();
        assertThat(other.tryAcquire("k")).as("still taken in Redis").isEmpty();
        clock.advance(LEASE);
        assertThat(other.tryAcquire("k")).as("back after the lease: the released slot is renewed no more").isPresent();
    }

    @Test
    void everyKeyHasATtlOfItsLongestLeaseAndItsOwnHashTag() {
        ConcurrencyLimiterConfig config = ConcurrencyLimiterConfig.of(5).withLease(LEASE);
        RedisConcurrencyLimiter limiter = instance(config, null);
        String userKey = "a}b{c";
        Permit permit = limiter.tryAcquire(userKey).orElseThrow();
        String key = limiter.redisKey(userKey);
        assertThat(key).isEqualTo(prefix + ":{calls:a%7Db%7Bc}:cc");
        assertThat(key.substring(key.indexOf('{') + 1, key.indexOf('}'))).as("the hash tag").isEqualTo("calls:a%7Db%7Bc");
        long pttl = TestRedisSupport.pttl(template, key);
        assertThat(pttl).isPositive().isLessThanOrEqualTo(LEASE.toMillis());
        assertThat(TestRedisSupport.keysUnder(template, prefix)).containsExactly(key);
        permit.close();
        assertThat(TestRedisSupport.exists(template, key)).isFalse();
    }

    @Test
    void aCallerWaitsUpToMaxWaitForASlot() throws Exception {
        ConcurrencyLimiter limiter = instance(ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofSeconds(10)), null);
        ConcurrencyLimiter impatient = instance(ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofMillis(50)), null);
        Permit held = limiter.acquire("k");
        long before = System.nanoTime();
        assertThatThrownBy(() -> impatient.acquire("k")).isInstanceOfSatisfying(RateLimitExceededException.class, (ex) -> {
            assertThat(ex.getDecision().limit()).isEqualTo(1);
            assertThat(ex.getDecision().remaining()).isZero();
        });
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        ExecutorService thread = Executors.newSingleThreadExecutor();
        Future<Permit> waiter = thread.submit(() -> limiter.acquire("k"));
        Thread.sleep(50);
        assertThat(waiter.isDone()).isFalse();
        held.close();
        waiter.get(5, TimeUnit.SECONDS).close();
        thread.shutdown();
    }
}
