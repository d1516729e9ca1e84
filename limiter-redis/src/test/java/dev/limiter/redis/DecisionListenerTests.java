package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.Outcome;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import io.lettuce.core.ClientOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A decision listener hears every decision with what made it: Redis (and how long it took), memory, or a failure policy. */
@RedisTest
class DecisionListenerTests {

    static final LimitSpec TWO_PER_MINUTE = LimitSpec.of(2, Duration.ofMinutes(1));

    record Heard(String limiter, Decision decision, DecisionSource source, long redisNanos) {
    }

    final List<Heard> heard = new CopyOnWriteArrayList<>();

    final DecisionListener listener = (event) -> heard
        .add(new Heard(event.limiter().name(), event.decision(), event.decision().source(), event.redisNanos()));

    final VirtualClock clock = new VirtualClock();

    final List<Outcome> heardOutcomes = new CopyOnWriteArrayList<>();

    final List<Throwable> failures = new CopyOnWriteArrayList<>();

    final DecisionListener outcomes = (event) -> {
        heardOutcomes.add(event.outcome());
        if (event.failure() != null) {
            failures.add(event.failure());
        }
    };

    @Test
    void memoryDecisionsAreHeardAsMemory() {
        RateLimiter limiter = InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(100).listener(listener).build()
            .create("orders", Algorithm.FIXED_WINDOW, TWO_PER_MINUTE);
        limiter.tryAcquire("k");
        limiter.tryAcquire("k");
        Decision rejected = limiter.tryAcquire("k");
        assertThat(heard).extracting(Heard::source).containsOnly(DecisionSource.MEMORY);
        assertThat(heard).extracting(Heard::redisNanos).containsOnly(-1L);
        assertThat(heard.get(2).decision()).isEqualTo(rejected);
        assertThat(heard.get(2).limiter()).isEqualTo("orders");
    }

    @Test
    void redisDecisionsCarryTheRoundTripAndOutagesTheirPolicy() {
        try (TestRedis redis = TestRedis.start()) {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
            LettuceConnectionFactory connections = TestRedisSupport.connectionFactory(redis, LettuceClientConfiguration.builder()
                .commandTimeout(Duration.ofMillis(500))
                .clientOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build())
                .build());
            try {
                RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(TestRedisSupport.template(connections))
                    .keyPrefix(TestRedisSupport.uniquePrefix())
                    .clock(clock)
                    .listener(listener).build();
                RateLimiter local = factory.create("local", Algorithm.TOKEN_BUCKET, TWO_PER_MINUTE);
                RateLimiter open = factory.create("open", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, TWO_PER_MINUTE)
                    .withOnRedisFailure(FailurePolicy.ALLOW));
                local.tryAcquire("k");
                assertThat(heard.get(0).source()).isEqualTo(DecisionSource.REDIS);
                assertThat(heard.get(0).redisNanos()).isPositive().isLessThan(TimeUnit.SECONDS.toNanos(10));
                redis.kill();
                local.tryAcquire("k");
                local.tryAcquire("k");
                open.tryAcquire("k");
                assertThat(heard.subList(1, 4)).extracting(Heard::source)
                    .containsExactly(DecisionSource.LOCAL_FALLBACK, DecisionSource.LOCAL_FALLBACK, DecisionSource.FAILURE_POLICY);
                assertThat(heard.subList(1, 4)).extracting(Heard::redisNanos).containsOnly(-1L);
                factory.close();
            }
            finally {
                connections.destroy();
            }
        }
    }

    @Test
    void aCallerReportsWhatBecomesOfRejectionsOnTheSameStateInMemory() {
        InMemoryRateLimiterFactory factory = InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(100).listener(outcomes).build();
        assertRejectionsReportedAsTheCallerSays(factory.create("orders", Algorithm.FIXED_WINDOW, TWO_PER_MINUTE));
    }

    @Test
    void aCallerReportsWhatBecomesOfRejectionsOnTheSameStateInRedis() {
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(TestRedisSupport.shared())
            .keyPrefix(TestRedisSupport.uniquePrefix())
            .clock(clock)
            .listener(outcomes).build();
        try {
            assertRejectionsReportedAsTheCallerSays(factory.create("orders", Algorithm.GCRA, TWO_PER_MINUTE));
        }
        finally {
            factory.close();
        }
    }

    /** Two permits through the limiter, then rejections through it and its views: one event each, with the view's outcome. */
    private void assertRejectionsReportedAsTheCallerSays(RateLimiter limiter) {
        RateLimiter fallback = limiter.reportingRejectionsAs(Outcome.FALLBACK);
        RateLimiter shadow = limiter.reportingRejectionsAs(Outcome.SHADOW_REJECTED);
        assertThat(limiter.reportingRejectionsAs(Outcome.REJECTED)).isSameAs(limiter);
        assertThat(fallback.name()).isEqualTo(limiter.name());
        assertThat(fallback.tryAcquire("k").allowed()).isTrue();
        assertThat(shadow.tryAcquire("k").allowed()).isTrue();
        // The views share the limiter's state: the key is spent for all of them.
        assertThat(fallback.tryAcquire("k").allowed()).isFalse();
        assertThat(shadow.tryAcquireAsync("k", 1).toCompletableFuture().join().allowed()).isFalse();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        assertThat(heardOutcomes).containsExactly(Outcome.ALLOWED, Outcome.ALLOWED, Outcome.FALLBACK, Outcome.SHADOW_REJECTED,
                Outcome.REJECTED);
    }

    @Test
    void aDecisionSentToRedisIsStartedAndItsListenerHearsHowThatOneEnds() {
        List<String> trace = new CopyOnWriteArrayList<>();
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(TestRedisSupport.shared())
            .keyPrefix(TestRedisSupport.uniquePrefix())
            .clock(clock)
            .localDenyCache(100)
            .listener(timing(trace)).build();
        try {
            RateLimiter limiter = factory.create("timed", Algorithm.TOKEN_BUCKET, TWO_PER_MINUTE);
            limiter.tryAcquire("k");
            limiter.tryAcquireAsync("k", 1).toCompletableFuture().join();
            limiter.tryAcquire("k");
            limiter.tryAcquire("k");
            limiter.tryAcquireAsync("k", 1).toCompletableFuture().join();
            // The deny cache answers the last two in this process: heard, never started.
            assertThat(trace).containsExactly("start 1", "end 1 ALLOWED REDIS", "start 2", "end 2 ALLOWED REDIS", "start 3",
                    "end 3 REJECTED REDIS", "unstarted REJECTED LOCAL_DENY_CACHE", "unstarted REJECTED LOCAL_DENY_CACHE");
        }
        finally {
            factory.close();
        }
    }

    @Test
    void aDecisionMadeInMemoryIsHeardWithoutBeingStarted() {
        List<String> trace = new CopyOnWriteArrayList<>();
        RateLimiter limiter = InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(100).listener(timing(trace)).build()
            .create("timed", Algorithm.TOKEN_BUCKET, TWO_PER_MINUTE);
        limiter.tryAcquire("k");
        limiter.tryAcquireAsync("k", 1).toCompletableFuture().join();
        limiter.tryAcquire("k");
        assertThat(trace).containsExactly("unstarted ALLOWED MEMORY", "unstarted ALLOWED MEMORY", "unstarted REJECTED MEMORY");
    }

    /** A listener tracing which decisions it was started for and how each ended. */
    private static DecisionListener timing(List<String> trace) {
        return new DecisionListener() {

            private final AtomicInteger started = new AtomicInteger();

            @Override
            public DecisionListener onStart(RateLimiter limiter) {
                int number = started.incrementAndGet();
                trace.add("start " + number);
                return (event) -> trace.add("end " + number + " " + event.outcome() + " " + event.decision().source());
            }

            @Override
            public void onDecision(DecisionEvent event) {
                trace.add("unstarted " + event.outcome() + " " + event.decision().source());
            }
        };
    }

    @Test
    void aCallThatCannotBeDecidedIsHeardAsAnError() {
        IllegalStateException broken = new IllegalStateException("broken");
        RateLimiter limiter = InMemoryRateLimiterFactory.builder().clock(() -> {
            throw broken;
        }).maxKeys(100).listener(outcomes).build().create("orders", Algorithm.FIXED_WINDOW, TWO_PER_MINUTE);
        assertThatThrownBy(() -> limiter.tryAcquire("k")).isSameAs(broken);
        assertThat(heardOutcomes).containsExactly(Outcome.ERROR);
        assertThat(failures).containsExactly(broken);
    }

    @Test
    void aDecisionSaysWhereItWasMadeButEqualsComparesWhatItDecides() {
        Decision memory = new Decision(true, 2, 1, Duration.ofSeconds(30), Duration.ZERO);
        Decision redis = new Decision(true, 2, 1, Duration.ofSeconds(30), Duration.ZERO, Duration.ZERO, null, DecisionSource.REDIS);
        assertThat(memory.source()).isEqualTo(DecisionSource.MEMORY);
        assertThat(redis.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(redis).isEqualTo(memory).hasSameHashCodeAs(memory);
        assertThat(redis).isNotEqualTo(new Decision(true, 2, 0, Duration.ofSeconds(30), Duration.ZERO));
        assertThat(redis.toString()).contains("source=REDIS");
    }
}
