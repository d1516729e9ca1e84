package dev.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

import dev.limiter.ConcurrencyEvent;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.Outcome;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.internal.ConcurrencySlots;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The in-memory twin of the Redis concurrency limit: the same slots, leases and renewals, in this process. */
@Timeout(60)
class InMemoryConcurrencyLimiterTests {

    static final Duration LEASE = Duration.ofSeconds(10);

    final AtomicLong now = new AtomicLong(1_700_000_000_000_000L);

    final InMemoryRateLimiterFactory factory = InMemoryRateLimiterFactory.builder().clock(now::get).build();

    final List<InMemoryConcurrencyLimiter> limiters = new ArrayList<>();

    @AfterEach
    void close() {
        limiters.forEach(InMemoryConcurrencyLimiter::close);
    }

    InMemoryConcurrencyLimiter limiter(ConcurrencyLimiterConfig config) {
        InMemoryConcurrencyLimiter limiter = (InMemoryConcurrencyLimiter) factory.createConcurrencyLimiter("calls", config);
        limiters.add(limiter);
        return limiter;
    }

    void advance(Duration duration) {
        now.addAndGet(duration.toNanos() / 1_000L);
    }

    /** Every take is heard once, with what decided and how long acquire took; releases are not decisions. */
    @Test
    void aListenerHearsEveryTakeOnce() {
        List<ConcurrencyEvent> heard = new CopyOnWriteArrayList<>();
        DecisionListener listener = new DecisionListener() {
            @Override
            public void onDecision(DecisionEvent event) {
                throw new AssertionError("a concurrency limit makes no rate decisions: " + event);
            }

            @Override
            public void onConcurrencyDecision(ConcurrencyEvent event) {
                heard.add(event);
            }
        };
        InMemoryRateLimiterFactory listened = InMemoryRateLimiterFactory.builder().clock(now::get).listener(listener).build();
        InMemoryConcurrencyLimiter limiter = (InMemoryConcurrencyLimiter) listened.createConcurrencyLimiter("calls",
                ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofMillis(20)));
        limiters.add(limiter);
        Permit first = limiter.tryAcquire("k").orElseThrow();
        assertThat(limiter.tryAcquire("k")).isEmpty();
        assertThatThrownBy(() -> limiter.acquire("k")).isInstanceOf(RateLimitExceededException.class);
        first.close();
        first.close();
        limiter.acquire("k").close();
        assertThat(heard).extracting(ConcurrencyEvent::outcome)
            .containsExactly(Outcome.ALLOWED, Outcome.REJECTED, Outcome.REJECTED, Outcome.ALLOWED);
        assertThat(heard).allSatisfy((event) -> {
            assertThat(event.limiter()).isSameAs(limiter);
            assertThat(event.source()).isEqualTo(DecisionSource.MEMORY);
        });
        assertThat(heard.get(0).waitedNanos()).as("tryAcquire never waits").isEqualTo(-1);
        assertThat(heard.get(1).waitedNanos()).isEqualTo(-1);
        assertThat(heard.get(2).waitedNanos()).as("acquire waited out its max-wait").isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
        assertThat(heard.get(3).waitedNanos()).isBetween(0L, Duration.ofMillis(20).toNanos());
    }

    @Test
    void inFlightCountsTheSlotsTakenWithoutTakingOne() {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(3).withLease(LEASE));
        assertThat(limiter.inFlight("k")).isZero();
        Permit first = limiter.acquire("k");
        limiter.acquire("k");
        assertThat(limiter.inFlight("k")).isEqualTo(2);
        assertThat(limiter.inFlight("other")).isZero();
        first.close();
        assertThat(limiter.inFlight("k")).isEqualTo(1);
        assertThat(limiter.inFlight("k")).as("reading took no slot").isEqualTo(1);
        advance(LEASE);
        assertThat(limiter.inFlight("k")).as("the open permit's lease ran out, not renewed on this clock").isZero();
    }

    @Test
    void neverMoreThanTheLimitRunAtOnce() throws Exception {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(3).withMaxWait(Duration.ofSeconds(20)));
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(10);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> calls = new ArrayList<>();
        for (int t = 0; t < 10; t++) {
            calls.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 10; i++) {
                    try (Permit permit = limiter.acquire("k")) {
                        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        Thread.sleep(2);
                        inFlight.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> call : calls) {
            call.get(50, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertThat(most.get()).isEqualTo(3);
        assertThat(limiter.inUse()).isZero();
        assertThat(limiter.inFlight("k")).isZero();
    }

    @Test
    void aSlotNeverReleasedComesBackAfterTheLease() {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(1).withLease(LEASE));
        limiter.tryAcquire("k").orElseThrow();
        limiter.close();
        InMemoryConcurrencyLimiter again = limiter(ConcurrencyLimiterConfig.of(1).withLease(LEASE));
        advance(LEASE.minusMillis(1));
        assertThat(limiter.tryAcquire("k")).isEmpty();
        advance(Duration.ofMillis(1));
        assertThat(limiter.tryAcquire("k")).isPresent();
        assertThat(again.tryAcquire("k")).as("limiters of one factory keep their own slots").isPresent();
    }

    @Test
    void renewalKeepsASlotAndNeverTakesOneBack() {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(1).withLease(LEASE));
        Permit running = limiter.tryAcquire("k").orElseThrow();
        for (int i = 0; i < 5; i++) {
            advance(LEASE.dividedBy(3));
            limiter.renewNow();
        }
        assertThat(limiter.inFlight("k")).isEqualTo(1);
        advance(LEASE);
        Permit other = limiter.tryAcquire("k").orElseThrow();
        limiter.renewNow();
        other.close();
        assertThat(limiter.inFlight("k")).as("the running call's lease ran out; renewing took nothing back").isZero();
        running.close();
        assertThat(limiter.inUse()).isZero();
    }

    @Test
    void waitsUpToMaxWaitThenRejects() throws Exception {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofMillis(30)));
        Permit held = limiter.acquire("k");
        assertThatThrownBy(() -> limiter.acquire("k")).isInstanceOfSatisfying(RateLimitExceededException.class, (ex) -> {
            assertThat(ex.getDecision().limit()).isEqualTo(1);
            assertThat(ex.getDecision().source()).isEqualTo(DecisionSource.MEMORY);
            assertThat(ex.getLimiterName()).isEqualTo("calls");
        });
        held.close();
        held.close();
        assertThat(limiter.acquire("k").key()).isEqualTo("k");
    }

    /** Waits (real time, not a lease) until {@code count} says {@code expected}: a waiter has queued. */
    static void awaitCount(IntSupplier count, int expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count.getAsInt() != expected) {
            assertThat(System.nanoTime()).as("waited for %d queued", expected).isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** First come, first served: the slot that comes free goes to the waiter at the head of the queue. */
    @Test
    void waitersTakeFreedSlotsInTheOrderTheyCame() {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(1).withLease(LEASE));
        Permit holder = limiter.tryAcquire("k").orElseThrow();
        assertThat(limiter.take("k", "w1")).isNull();
        assertThat(limiter.take("k", "w2")).isNull();
        assertThat(limiter.take("k", "w3")).isNull();
        assertThat(limiter.queued("k")).isEqualTo(3);
        holder.close();
        assertThat(limiter.take("k", "w3")).as("the last one comes too late").isNull();
        assertThat(limiter.take("k", "w2")).as("the second one is not at the head").isNull();
        Permit first = limiter.take("k", "w1");
        assertThat(first).as("the first one").isNotNull();
        first.close();
        assertThat(limiter.take("k", "w3")).isNull();
        Permit second = limiter.take("k", "w2");
        assertThat(second).isNotNull();
        second.close();
        Permit third = limiter.take("k", "w3");
        assertThat(third).isNotNull();
        assertThat(limiter.queued("k")).as("each left the queue with its slot").isZero();
        third.close();
    }

    @Test
    void waitingCallersAreServedInArrivalOrder() throws Exception {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofSeconds(30)));
        Permit holder = limiter.acquire("k");
        List<String> served = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        List<Future<?>> waiters = new ArrayList<>();
        for (String name : List.of("w1", "w2", "w3")) {
            waiters.add(threads.submit(() -> {
                try (Permit permit = limiter.acquire("k")) {
                    served.add(name);
                }
                return null;
            }));
            awaitCount(() -> limiter.queued("k"), waiters.size());
        }
        holder.close();
        for (Future<?> waiter : waiters) {
            waiter.get(20, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertThat(served).containsExactly("w1", "w2", "w3");
        assertThat(limiter.queued("k")).isZero();
    }

    @Test
    void aWaiterThatStoppedPollingLosesItsPlaceAfterItsTicketLease() {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(1).withLease(LEASE));
        Permit holder = limiter.tryAcquire("k").orElseThrow();
        assertThat(limiter.take("k", "dead")).isNull();
        assertThat(limiter.take("k", "alive")).isNull();
        holder.close();
        advance(ConcurrencySlots.TICKET_LEASE.dividedBy(2));
        assertThat(limiter.take("k", "alive")).as("behind the dead one, its ticket renewed").isNull();
        assertThat(limiter.tryAcquire("k")).as("a newcomer is behind both").isEmpty();
        advance(ConcurrencySlots.TICKET_LEASE.dividedBy(2));
        Permit alive = limiter.take("k", "alive");
        assertThat(alive).as("the dead one's ticket ran out; the live one's was renewed").isNotNull();
        assertThat(limiter.queued("k")).isZero();
        alive.close();
        assertThat(limiter.take("k", "dead")).as("back to the end of an empty queue").isNotNull();
    }

    @Test
    void tryAcquireNeverTakesASlotAQueuedWaiterIsDue() {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(2).withLease(LEASE));
        Permit one = limiter.tryAcquire("k").orElseThrow();
        Permit two = limiter.tryAcquire("k").orElseThrow();
        assertThat(limiter.take("k", "waiter")).isNull();
        one.close();
        assertThat(limiter.tryAcquire("k")).as("the free slot is the waiter's").isEmpty();
        two.close();
        Permit beyond = limiter.tryAcquire("k").orElseThrow();
        assertThat(limiter.take("k", "waiter")).as("one free slot beyond the queue went to the newcomer, one is the waiter's").isNotNull();
        beyond.close();
        assertThat(limiter.queued("k")).isZero();
        assertThat(limiter.tryAcquire("k")).as("no one queued: as before").isPresent();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueAtOnce() throws Exception {
        InMemoryConcurrencyLimiter limiter = limiter(ConcurrencyLimiterConfig.of(1).withLease(LEASE).withMaxWait(Duration.ofMillis(20)));
        Permit holder = limiter.acquire("k");
        assertThatThrownBy(() -> limiter.acquire("k")).isInstanceOf(RateLimitExceededException.class);
        assertThat(limiter.queued("k")).as("gave up at max-wait").isZero();
        InMemoryConcurrencyLimiter patient = limiter(ConcurrencyLimiterConfig.of(1).withLease(LEASE).withMaxWait(Duration.ofSeconds(30)));
        Permit patientHolder = patient.acquire("k");
        ExecutorService thread = Executors.newSingleThreadExecutor();
        Future<Permit> waiter = thread.submit(() -> patient.acquire("k"));
        awaitCount(() -> patient.queued("k"), 1);
        thread.shutdownNow();
        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(RateLimitExceededException.class);
        assertThat(patient.queued("k")).as("interrupted").isZero();
        holder.close();
        patientHolder.close();
        assertThat(limiter.tryAcquire("k")).as("no ticket left behind").isPresent();
        assertThat(patient.tryAcquire("k")).isPresent();
    }

    @Test
    void configurationErrorsNameTheValueAndTheFix() {
        assertThatThrownBy(() -> ConcurrencyLimiterConfig.of(0)).hasMessageContaining("limit").hasMessageContaining("was 0");
        assertThatThrownBy(() -> ConcurrencyLimiterConfig.of(1).withLease(Duration.ofMillis(10)))
            .hasMessageContaining("lease must be whole milliseconds between PT0.1S and PT24H but was PT0.01S");
        assertThatThrownBy(() -> ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofSeconds(-1))).hasMessageContaining("max-wait");
        assertThat(ConcurrencyLimiterConfig.of(4).withMaxWait(Duration.ofSeconds(1)).withOnRedisFailure(FailurePolicy.DENY))
            .hasToString("concurrency 4 lease PT30S max-wait PT1S on-redis-failure deny");
        assertThatThrownBy(() -> factory.createConcurrencyLimiter("bad name", ConcurrencyLimiterConfig.of(1)))
            .hasMessageContaining("Invalid limiter name 'bad name'");
    }
}
