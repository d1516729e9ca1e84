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

import dev.limiter.ConcurrencyEvent;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.Outcome;
import dev.limiter.Permit;
import dev.limiter.RateLimitExceededException;

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
