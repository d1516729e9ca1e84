package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.limiter.ConcurrencyEvent;
import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.FailurePolicy;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * While Redis fails, a concurrency limit follows its failure policy: allow admits, deny rejects, local
 * keeps to this instance's share of the limit in memory; permits taken before the outage close without
 * bothering their callers.
 */
@RedisTest
@Timeout(60)
class ConcurrencyFailurePolicyTests {

    PrivateRedis server;

    final VirtualClock clock = new VirtualClock();

    RedisRateLimiterFactory factory;

    /** What the limiter's listener heard: outcome and source of each take. */
    final List<String> heard = new CopyOnWriteArrayList<>();

    final DecisionListener listener = new DecisionListener() {
        @Override
        public void onDecision(DecisionEvent event) {
        }

        @Override
        public void onConcurrencyDecision(ConcurrencyEvent event) {
            heard.add(event.outcome().tag() + " by " + event.source().tag());
        }
    };

    @BeforeEach
    void startPrivateRedis() {
        server = PrivateRedis.start(Duration.ofMillis(500), Delay.constant(Duration.ofMillis(50)));
    }

    @AfterEach
    void stopPrivateRedis() {
        if (factory != null) {
            factory.close();
        }
        if (server != null) {
            server.close();
        }
    }

    final String prefix = TestRedisSupport.uniquePrefix();

    ConcurrencyLimiter limiter(FailurePolicy factoryPolicy, ConcurrencyLimiterConfig config) {
        factory = RedisRateLimiterFactory.builder(server.template).keyPrefix(prefix).clock(clock)
            .failurePolicy(factoryPolicy).expectedInstances(2).listener(listener)
            .localLimiters(InMemoryRateLimiterFactory.builder().clock(clock).build()).build();
        return factory.createConcurrencyLimiter("calls", config);
    }

    @Test
    void allowAdmitsEveryCallWhileRedisIsDown() {
        ConcurrencyLimiter limiter = limiter(FailurePolicy.ALLOW, ConcurrencyLimiterConfig.of(1));
        Permit before = limiter.tryAcquire("k").orElseThrow();
        server.redis.kill();
        before.close();
        Permit first = limiter.tryAcquire("k").orElseThrow();
        Permit second = limiter.acquire("k");
        assertThat(limiter.inUse()).isEqualTo(2);
        first.close();
        second.close();
        assertThat(limiter.inUse()).isZero();
        assertThat(heard).containsExactly("allowed by redis", "allowed by failure-policy", "allowed by failure-policy");
    }

    @Test
    void denyRejectsEveryCallWhileRedisIsDown() {
        ConcurrencyLimiter limiter = limiter(FailurePolicy.ALLOW, ConcurrencyLimiterConfig.of(5).withOnRedisFailure(FailurePolicy.DENY));
        server.redis.kill();
        assertThat(limiter.tryAcquire("k")).isEmpty();
        assertThatThrownBy(() -> limiter.acquire("k")).isInstanceOf(RateLimitExceededException.class);
        assertThat(limiter.inUse()).isZero();
        assertThat(heard).containsExactly("rejected by failure-policy", "rejected by failure-policy");
        assertThatThrownBy(() -> limiter.inFlight("k")).as("no count is guessed while Redis is down").isInstanceOf(RuntimeException.class);
    }

    @Test
    void localKeepsToThisInstancesShareInMemory() {
        ConcurrencyLimiter limiter = limiter(FailurePolicy.LOCAL, ConcurrencyLimiterConfig.of(5));
        server.redis.kill();
        // 5 among the 2 instances expected: 3 here, rounded up.
        Permit one = limiter.tryAcquire("k").orElseThrow();
        limiter.tryAcquire("k").orElseThrow();
        limiter.tryAcquire("k").orElseThrow();
        assertThat(limiter.tryAcquire("k")).isEmpty();
        assertThat(limiter.inUse()).isEqualTo(3);
        one.close();
        assertThat(limiter.tryAcquire("k")).as("a local slot released is taken again").isPresent();
        assertThat(heard).containsExactly("allowed by local-fallback", "allowed by local-fallback", "allowed by local-fallback",
                "rejected by local-fallback", "allowed by local-fallback");
    }

    /**
     * A waiter queued in Redis when Redis fails: its next attempts are the failure policy's (here a slot of
     * the local share), heard once; its ticket, never taken out of the dead Redis, would run out by its lease.
     */
    @Test
    void aQueuedWaiterIsDecidedByThePolicyWhenRedisFails() throws Exception {
        RedisConcurrencyLimiter limiter = (RedisConcurrencyLimiter) limiter(FailurePolicy.LOCAL,
                ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofSeconds(30)));
        Permit holder = limiter.acquire("k");
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<Permit> waiter = thread.submit(() -> limiter.acquire("k"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Boolean.TRUE.equals(server.template.hasKey(limiter.queueKey("k")))) {
                assertThat(System.nanoTime()).as("the waiter queued").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            server.redis.kill();
            Permit local = waiter.get(20, TimeUnit.SECONDS);
            assertThat(limiter.inUse()).isEqualTo(2);
            local.close();
            holder.close();
            assertThat(limiter.inUse()).isZero();
            assertThat(heard).containsExactly("allowed by redis", "allowed by local-fallback");
        }
        finally {
            thread.shutdownNow();
        }
    }

    /** Calls in flight are read across instances, without taking a slot; the listener hears Redis' decisions. */
    @Test
    void inFlightCountsEveryInstancesSlots() {
        ConcurrencyLimiter here = limiter(FailurePolicy.DENY, ConcurrencyLimiterConfig.of(3));
        RedisRateLimiterFactory other = RedisRateLimiterFactory.builder(server.template).keyPrefix(prefix).clock(clock).build();
        try {
            ConcurrencyLimiter there = other.createConcurrencyLimiter("calls", ConcurrencyLimiterConfig.of(3));
            assertThat(here.inFlight("k")).isZero();
            Permit mine = here.acquire("k");
            there.acquire("k");
            assertThat(here.inFlight("k")).isEqualTo(2);
            assertThat(there.inFlight("k")).isEqualTo(2);
            assertThat(here.inFlight("other")).isZero();
            mine.close();
            assertThat(there.inFlight("k")).isEqualTo(1);
            there.acquire("k");
            there.acquire("k");
            assertThat(here.tryAcquire("k")).isEmpty();
            assertThat(here.inFlight("k")).as("reading took no slot and rejected nothing").isEqualTo(3);
            assertThat(heard).as("only this instance's listener, only its takes").containsExactly("allowed by redis", "rejected by redis");
        }
        finally {
            other.close();
        }
    }
}
