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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.internal.ConcurrencySlots;
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
 * closes, renewed while it is open, and comes back after the lease when its holder died; waiters of every
 * instance are served first come, first served.
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
        RedisConcurrencyLimiter full = instance(ConcurrencyLimiterConfig.of(2).withLease(LEASE), null);
        Permit other = full.tryAcquire(userKey).orElseThrow();
        assertThat(full.take(userKey, "waiter")).isNull();
        for (String waiting : List.of(full.queueKey(userKey), full.ticketsKey(userKey))) {
            assertThat(waiting).isEqualTo(prefix + ":{calls:a%7Db%7Bc}:" + waiting.substring(waiting.lastIndexOf(':') + 1));
            assertThat(waiting.substring(waiting.indexOf('{') + 1, waiting.indexOf('}'))).as("the same hash tag").isEqualTo("calls:a%7Db%7Bc");
            assertThat(TestRedisSupport.pttl(template, waiting)).as("a ticket lease at most").isPositive()
                .isLessThanOrEqualTo(ConcurrencySlots.TICKET_LEASE.toMillis());
        }
        assertThat(full.queueKey(userKey)).endsWith("}:ccq");
        assertThat(full.ticketsKey(userKey)).endsWith("}:cct");
        permit.close();
        other.close();
        full.leave(userKey, "waiter");
        assertThat(TestRedisSupport.exists(template, key)).isFalse();
        assertThat(TestRedisSupport.keysUnder(template, prefix)).as("leaving emptied the queue").isEmpty();
    }

    /** The tickets in {@code key}'s queue of {@code limiter}, expired or not. */
    long queued(RedisConcurrencyLimiter limiter, String key) {
        Long size = template.opsForZSet().zCard(limiter.queueKey(key));
        return (size != null) ? size : 0;
    }

    /** Waits (real time, not a lease) until {@code expected} tickets are queued. */
    void awaitQueued(RedisConcurrencyLimiter limiter, String key, long expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (queued(limiter, key) != expected) {
            assertThat(System.nanoTime()).as("waited for %d queued", expected).isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** First come, first served across instances: a freed slot goes to the waiter at the head of the queue. */
    @Test
    void waitersOfEveryInstanceTakeFreedSlotsInTheOrderTheyCame() {
        ConcurrencyLimiterConfig config = ConcurrencyLimiterConfig.of(1).withLease(LEASE);
        RedisConcurrencyLimiter holder = instance(config, clock);
        RedisConcurrencyLimiter w1 = instance(config, clock);
        RedisConcurrencyLimiter w2 = instance(config, clock);
        RedisConcurrencyLimiter w3 = instance(config, clock);
        Permit held = holder.tryAcquire("k").orElseThrow();
        // Arriving in the same microsecond (the clock stands still), tickets in reverse alphabetical order: the
        // order is still the order they came in, not Redis' order of members of equal score.
        assertThat(w1.take("k", "z1")).isNull();
        assertThat(w2.take("k", "m2")).isNull();
        assertThat(w3.take("k", "a3")).isNull();
        held.close();
        assertThat(w3.take("k", "a3")).as("the last one comes too late").isNull();
        assertThat(w2.take("k", "m2")).as("the second one is not at the head").isNull();
        Permit first = w1.take("k", "z1");
        assertThat(first).as("the first one").isNotNull();
        first.close();
        assertThat(w3.take("k", "a3")).isNull();
        Permit second = w2.take("k", "m2");
        assertThat(second).isNotNull();
        second.close();
        Permit third = w3.take("k", "a3");
        assertThat(third).isNotNull();
        assertThat(queued(w1, "k")).as("each left the queue with its slot").isZero();
        third.close();
        assertThat(TestRedisSupport.keysUnder(template, prefix)).as("nothing left behind").isEmpty();
    }

    @Test
    void waitingCallersOfEveryInstanceAreServedInArrivalOrder() throws Exception {
        ConcurrencyLimiterConfig config = ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofSeconds(30));
        RedisConcurrencyLimiter holder = instance(config, null);
        Permit held = holder.acquire("k");
        List<String> served = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        List<Future<?>> waiters = new ArrayList<>();
        for (String name : List.of("w1", "w2", "w3")) {
            RedisConcurrencyLimiter waiter = instance(config, null);
            waiters.add(threads.submit(() -> {
                try (Permit permit = waiter.acquire("k")) {
                    served.add(name);
                }
                return null;
            }));
            awaitQueued(holder, "k", waiters.size());
        }
        held.close();
        for (Future<?> waiter : waiters) {
            waiter.get(20, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertThat(served).containsExactly("w1", "w2", "w3");
        assertThat(queued(holder, "k")).isZero();
    }

    @Test
    void aWaiterThatStoppedPollingLosesItsPlaceAfterItsTicketLease() {
        ConcurrencyLimiterConfig config = ConcurrencyLimiterConfig.of(1).withLease(LEASE);
        RedisConcurrencyLimiter holder = instance(config, clock);
        RedisConcurrencyLimiter dead = instance(config, clock);
        RedisConcurrencyLimiter alive = instance(config, clock);
        Permit held = holder.tryAcquire("k").orElseThrow();
        assertThat(dead.take("k", "dead")).isNull();
        assertThat(alive.take("k", "alive")).isNull();
        // The dead one's JVM is gone: it polls no more and never leaves the queue.
        dead.close();
        held.close();
        clock.advance(ConcurrencySlots.TICKET_LEASE.dividedBy(2));
        assertThat(alive.take("k", "alive")).as("behind the dead one, its ticket renewed").isNull();
        assertThat(holder.tryAcquire("k")).as("a newcomer is behind both").isEmpty();
        clock.advance(ConcurrencySlots.TICKET_LEASE.dividedBy(2));
        Permit served = alive.take("k", "alive");
        assertThat(served).as("the dead one's ticket ran out; the live one's was renewed").isNotNull();
        assertThat(queued(alive, "k")).isZero();
        served.close();
    }

    @Test
    void tryAcquireNeverTakesASlotAQueuedWaiterIsDue() {
        ConcurrencyLimiterConfig config = ConcurrencyLimiterConfig.of(2).withLease(LEASE);
        RedisConcurrencyLimiter newcomer = instance(config, clock);
        RedisConcurrencyLimiter waiter = instance(config, clock);
        Permit one = newcomer.tryAcquire("k").orElseThrow();
        Permit two = newcomer.tryAcquire("k").orElseThrow();
        assertThat(waiter.take("k", "waiter")).isNull();
        one.close();
        assertThat(newcomer.tryAcquire("k")).as("the free slot is the waiter's").isEmpty();
        two.close();
        Permit beyond = newcomer.tryAcquire("k").orElseThrow();
        assertThat(waiter.take("k", "waiter")).as("one free slot beyond the queue went to the newcomer, one is the waiter's").isNotNull();
        beyond.close();
        assertThat(queued(waiter, "k")).isZero();
        assertThat(newcomer.tryAcquire("k")).as("no one queued: as before").isPresent();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueAtOnce() throws Exception {
        RedisConcurrencyLimiter holder = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE), clock);
        RedisConcurrencyLimiter impatient = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE).withMaxWait(Duration.ofMillis(20)), clock);
        RedisConcurrencyLimiter patient = instance(ConcurrencyLimiterConfig.of(1).withLease(LEASE).withMaxWait(Duration.ofSeconds(30)), clock);
        Permit held = holder.tryAcquire("k").orElseThrow();
        assertThatThrownBy(() -> impatient.acquire("k")).isInstanceOf(RateLimitExceededException.class);
        assertThat(queued(holder, "k")).as("gave up at max-wait").isZero();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        Future<Permit> waiter = thread.submit(() -> patient.acquire("k"));
        awaitQueued(holder, "k", 1);
        thread.shutdownNow();
        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(RateLimitExceededException.class);
        assertThat(queued(holder, "k")).as("interrupted").isZero();
        held.close();
        assertThat(holder.tryAcquire("k")).as("no ticket left behind, on the same clock").isPresent();
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
