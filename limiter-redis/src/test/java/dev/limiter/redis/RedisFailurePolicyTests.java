package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RefundFailedException;
import dev.limiter.SettleFailedException;
import dev.limiter.ResetFailedException;
import dev.limiter.memory.InMemoryRateLimiterFactory;
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
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A Redis outage never reaches callers: the failure policy decides at once (local, allow or deny),
 * and decisions come from Redis again soon after it answers.
 */
@RedisTest
@Timeout(60)
class RedisFailurePolicyTests {

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    PrivateRedis server;

    TestRedis redis;

    StringRedisTemplate template;

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    @BeforeEach
    void startPrivateRedis() {
        // Short timeouts and reconnect delay keep the outage and the recovery quick.
        server = PrivateRedis.start(Duration.ofMillis(500), Delay.constant(Duration.ofMillis(50)));
        redis = server.redis;
        template = server.template;
    }

    @AfterEach
    void stopPrivateRedis() {
        if (server != null) {
            server.close();
        }
    }

    RedisRateLimiterFactory factory(FailurePolicy policy, int expectedInstances) {
        return builder(policy, expectedInstances).build();
    }

    RedisRateLimiterFactory.Builder builder(FailurePolicy policy, int expectedInstances) {
        // Every failed call is an outage: a killed Redis drops the connection, which alone is no
        // outage (OutageChargeTests), and these tests are about what the policies do in one.
        return RedisRateLimiterFactory.builder(template)
            .outageAfter(Duration.ZERO)
            .keyPrefix(prefix)
            .clock(clock)
            .failurePolicy(policy)
            .localLimiters(InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(1000).build())
            .expectedInstances(expectedInstances);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void localDecidesInMemoryWhileRedisIsDownAndRedisDecidesOnceItAnswers(Algorithm algorithm) throws InterruptedException {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL, 1);
        RedisRateLimiter limiter = (RedisRateLimiter) factory.create("orders", algorithm, FIVE_PER_10S);
        String redisKey = limiter.redisKey("k");

        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
        assertThat(TestRedisSupport.exists(template, redisKey)).as("decided by Redis").isTrue();

        redis.kill();
        // The in-memory twin continues from what Redis last said: 4 left, not a fresh 5.
        for (int i = 0; i < 4; i++) {
            Decision d = limiter.tryAcquire("k");
            assertThat(d.allowed()).as("call %d during the outage", i + 1).isTrue();
            assertThat(d.remaining()).isEqualTo(3 - i);
            assertThat(d.source()).isEqualTo(DecisionSource.LOCAL_FALLBACK);
        }
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        assertThat(factory.isRedisAvailable()).isFalse();

        redis.restart(); // empty again
        long answered = System.nanoTime();
        // The clock does not move, so the exhausted local limiter rejects every call: the first
        // allowed decision can only come from Redis.
        Decision fromRedis = awaitAllowed(limiter, Duration.ofSeconds(5));
        Duration resumedAfter = Duration.ofNanos(System.nanoTime() - answered);
        assertThat(fromRedis).as("a decision from Redis after restart").isNotNull();
        assertThat(resumedAfter).as("Redis decides again within a second of answering").isLessThanOrEqualTo(Duration.ofSeconds(1));
        // Redis came back empty (no persistence: the permit it had counted is lost), and the 4 permits
        // the local policy admitted meanwhile were charged before it decided again: 5 - 4 - 1.
        assertThat(fromRedis.remaining()).isEqualTo(0);
        assertThat(TestRedisSupport.exists(template, redisKey)).isTrue();
        assertThat(factory.isRedisAvailable()).isTrue();
        factory.close();
    }

    /** Polls until a call is allowed (bounded): waits for a reconnect, not for time to pass. */
    private static Decision awaitAllowed(RateLimiter limiter, Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (System.nanoTime() < deadline) {
            Decision d = limiter.tryAcquire("k");
            if (d.allowed()) {
                return d;
            }
            Thread.sleep(10);
        }
        return null;
    }

    @Test
    void localDividesEachLimitAmongTheExpectedInstances() {
        RateLimiter limiter = factory(FailurePolicy.LOCAL, 3).create("orders",
                RateLimiterConfig.of(Algorithm.FIXED_WINDOW, FIVE_PER_10S, LimitSpec.of(12, Duration.ofMinutes(1))));
        redis.kill();
        // 5 per 10 s and 12 per minute over 3 instances: 1 and 4 here, rounded down, so that the three
        // together never admit more than the limit.
        Decision first = limiter.tryAcquire("k");
        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).isZero();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    }

    @Test
    void aClaimOnARememberedRejectionEndsWithItsPeriodWhenRedisFailsTheClaimant() {
        RedisRateLimiterFactory factory = builder(FailurePolicy.ALLOW, 1).localDenyCache(10).build();
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, LimitSpec.of(1, Duration.ofMillis(100)));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        Decision rejected = limiter.tryAcquire("k");
        assertThat(rejected.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.LOCAL_DENY_CACHE);
        clock.advance(rejected.retryAfter());
        redis.kill();
        // The caller that claims the rejection gets no answer from Redis: the policy decides it.
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.FAILURE_POLICY);
        assertThat(limiter.tryAcquire("k").source()).as("held to the end of the claim's period").isEqualTo(DecisionSource.LOCAL_DENY_CACHE);
        // Then the next caller claims it, instead of all waiting out the answer timeout for an answer that never comes.
        clock.advance(rejected.retryAfter());
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.FAILURE_POLICY);
        factory.close();
    }

    /**
     * Warm-up loads every script it and the first decisions send, so that a fresh Redis counts no error
     * for them (a NOSCRIPT answered to the first heartbeat, before). Counted from after the connection's
     * own handshake, whose commands a Redis older than the client may refuse.
     */
    @Test
    void warmingUpOnAFreshRedisLeavesNoErrorInItsStats() {
        Properties before = errorStats();
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(template).keyPrefix(prefix).clock(clock).batching(64).build();
        factory.warmUp();
        factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S).tryAcquire("k");
        assertThat(errorStats()).as("errors Redis counted, before: %s", before).isEqualTo(before);
        factory.close();
    }

    /** INFO errorstats: a line per error prefix Redis answered, with its count. */
    private Properties errorStats() {
        Properties errors = template.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("errorstats"));
        assertThat(errors).isNotNull();
        return errors;
    }

    @Test
    void aScriptRedisLostIsSentAgainInTheSameCallWithoutAFailedDecision() {
        RedisRateLimiterFactory factory = factory(FailurePolicy.DENY, 1);
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
        template.execute((RedisCallback<Void>) (connection) -> {
            connection.scriptingCommands().scriptFlush();
            return null;
        });
        // EVALSHA answers NOSCRIPT; EVAL sends the script in the same call, and Redis keeps it again.
        Decision afterFlush = limiter.tryAcquire("k");
        assertThat(afterFlush.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(afterFlush.remaining()).isEqualTo(3);
        assertThat(limiter.quota("k").remaining()).isEqualTo(3);
        assertThat(factory.isRedisAvailable()).as("NOSCRIPT is not an outage").isTrue();
        factory.close();
    }

    @Test
    void aResetWhileRedisIsDownFailsAndSaysSoInsteadOfPretending() {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL, 1);
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            limiter.tryAcquire("k");
        }
        redis.kill();
        // Redis is still taken to answer: the UNLINK itself fails, and is evidence of the outage.
        assertThatThrownBy(() -> limiter.reset("k")).isInstanceOf(ResetFailedException.class)
            .hasMessageStartingWith("Could not reset key 'k' of limiter 'orders': Redis failed")
            .hasCauseInstanceOf(RuntimeException.class);
        assertThat(factory.isRedisAvailable()).isFalse();
        assertThatThrownBy(() -> limiter.reset("k")).isInstanceOf(ResetFailedException.class)
            .hasMessage("Could not reset key 'k' of limiter 'orders': Redis is unavailable (the limiters follow their failure "
                    + "policy); try again once it answers");
        // Nothing was reset: the local policy still knows the key is exhausted.
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        factory.close();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aSettlementWhileRedisIsDownFailsAndSaysSoInsteadOfPretending(Algorithm algorithm) {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL, 1);
        RateLimiter limiter = factory.create("orders", algorithm, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            limiter.tryAcquire("k");
        }
        redis.kill();
        assertThatThrownBy(() -> limiter.settle("k", 1, 3)).isInstanceOf(SettleFailedException.class)
            .hasMessageStartingWith("Could not settle key 'k' of limiter 'orders' from 1 permits reserved to 3 actual: Redis failed")
            .hasCauseInstanceOf(RuntimeException.class);
        assertThat(factory.isRedisAvailable()).isFalse();
        assertThatThrownBy(() -> limiter.settle("k", 3, 1)).isInstanceOf(SettleFailedException.class)
            .hasMessage("Could not settle key 'k' of limiter 'orders' from 3 permits reserved to 1 actual: Redis is unavailable (the "
                    + "limiters follow their failure policy); nothing was settled");
        // Nothing was given back: the local policy still knows the key is exhausted.
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        // A cost as estimated asks no one, so it cannot fail.
        assertThat(limiter.settle("k", 2, 2)).isNull();
        factory.close();
    }

    /**
     * settleAsync sends the script and returns: a paused Redis holds back the stage, not the caller. A
     * Redis that fails completes the stage with SettleFailedException, never leaving it open.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void anAsynchronousSettlementWaitsForNoOneAndFailsItsStageWhenRedisFails(Algorithm algorithm) {
        RedisRateLimiterFactory factory = builder(FailurePolicy.LOCAL, 1).reactiveRedis(new ReactiveStringRedisTemplate(server.connections))
            .build();
        RateLimiter limiter = factory.create("orders", algorithm, FIVE_PER_10S);
        // Connected, as at an application's start: opening the reactive connection blocks, sending on it does not.
        factory.warmUp();
        for (int i = 0; i < 5; i++) {
            limiter.tryAcquire("k");
        }
        redis.pause();
        CompletableFuture<Quota> refunded;
        try {
            refunded = limiter.settleAsync("k", 5, 1).toCompletableFuture();
            assertThat(refunded).as("a settlement Redis has not answered yet").isNotDone();
        }
        finally {
            redis.resume();
        }
        assertThat(refunded.join().remaining()).isEqualTo(4);
        redis.kill();
        CompletableFuture<Quota> failed = limiter.settleAsync("k", 1, 3).toCompletableFuture();
        assertThatThrownBy(failed::join).cause().isInstanceOf(SettleFailedException.class)
            .hasMessageStartingWith("Could not settle key 'k' of limiter 'orders' from 1 permits reserved to 3 actual: Redis failed");
        assertThat(factory.isRedisAvailable()).isFalse();
        assertThatThrownBy(limiter.settleAsync("k", 3, 1).toCompletableFuture()::join).cause().isInstanceOf(SettleFailedException.class)
            .hasMessageEndingWith("Redis is unavailable (the limiters follow their failure policy); nothing was settled");
        assertThat(limiter.settleAsync("k", 2, 2).toCompletableFuture().join()).isNull();
        factory.close();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefundWhileRedisIsDownFailsAndSaysSoInsteadOfPretending(Algorithm algorithm) {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL, 1);
        RateLimiter limiter = factory.create("orders", algorithm, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            limiter.tryAcquire("k");
        }
        redis.kill();
        // Redis is still taken to answer: the script itself fails, and is evidence of the outage.
        assertThatThrownBy(() -> limiter.refund("k", 2)).isInstanceOf(RefundFailedException.class)
            .hasMessageStartingWith("Could not give 2 permits back to key 'k' of limiter 'orders': Redis failed")
            .hasCauseInstanceOf(RuntimeException.class);
        assertThat(factory.isRedisAvailable()).isFalse();
        assertThatThrownBy(() -> limiter.refund("k", 1)).isInstanceOf(RefundFailedException.class)
            .hasMessage("Could not give 1 permit back to key 'k' of limiter 'orders': Redis is unavailable (the limiters follow their "
                    + "failure policy); try again once it answers");
        // Nothing was given back: the local policy still knows the key is exhausted.
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        factory.close();
    }

    @Test
    void aResetKeyStartsFromAWholeShareWhenRedisFailsLater() {
        RedisRateLimiterFactory factory = factory(FailurePolicy.LOCAL, 1);
        RateLimiter limiter = factory.create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            limiter.tryAcquire("k");
        }
        assertThat(limiter.reset("k")).isTrue();
        redis.kill();
        // Redis' last word on the key (none left) is forgotten with the reset; the key starts whole.
        Decision local = limiter.tryAcquire("k");
        assertThat(local.source()).isEqualTo(DecisionSource.LOCAL_FALLBACK);
        assertThat(local.allowed()).isTrue();
        assertThat(local.remaining()).isEqualTo(4);
        factory.close();
    }

    @Test
    void allowAdmitsEveryCallWhileRedisIsDown() {
        RateLimiter limiter = factory(FailurePolicy.ALLOW, 1).create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        redis.kill();
        for (int i = 0; i < 20; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        }
    }

    @Test
    void denyRejectsEveryCallWhileRedisIsDown() {
        RateLimiter limiter = factory(FailurePolicy.DENY, 1).create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        redis.kill();
        Decision denied = limiter.tryAcquire("k");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(denied.neverAllowed()).isFalse();
    }

    @Test
    void aLiveLeaseIsHandedOutWhileRedisIsDownThenThePolicyDecides() {
        RateLimiter limiter = factory(FailurePolicy.DENY, 1).create("orders", RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET)
            .limit(LimitSpec.of(100, Duration.ofHours(1))).lease(5, Duration.ofSeconds(10)).build());
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(DecisionSource.REDIS);
        assertThat(limiter.tryAcquire("k").source()).as("hot: leases 5").isEqualTo(DecisionSource.REDIS);
        redis.kill();
        for (int i = 0; i < 5; i++) {
            Decision leased = limiter.tryAcquire("k");
            assertThat(leased.allowed()).isTrue();
            assertThat(leased.source()).as("those permits were taken in Redis").isEqualTo(DecisionSource.LEASE);
        }
        Decision denied = limiter.tryAcquire("k");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.source()).isEqualTo(DecisionSource.FAILURE_POLICY);
    }

    @Test
    void aLimitersOwnPolicyOverridesTheFactorysDefault() {
        RedisRateLimiterFactory factory = factory(FailurePolicy.DENY, 1);
        RateLimiter open = factory.create("open", RateLimiterConfig.of(Algorithm.TOKEN_BUCKET, FIVE_PER_10S)
            .withOnRedisFailure(FailurePolicy.ALLOW));
        RateLimiter closed = factory.create("closed", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        redis.kill();
        assertThat(open.tryAcquire("k").allowed()).isTrue();
        assertThat(closed.tryAcquire("k").allowed()).isFalse();
    }

    @Test
    void noPolicyHidesArgumentErrors() {
        RateLimiter limiter = factory(FailurePolicy.ALLOW, 1).create("orders", Algorithm.TOKEN_BUCKET, FIVE_PER_10S);
        redis.kill();
        assertThatThrownBy(() -> limiter.tryAcquire("k", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachFailedProbeRunsTheRecoveryActionAndNothingItThrowsEndsTheProbing() throws InterruptedException {
        AtomicInteger recoveries = new AtomicInteger();
        RedisRateLimiterFactory factory = builder(FailurePolicy.LOCAL, 1).probeInterval(Duration.ofMillis(20))
            .recoveryAction(() -> {
                recoveries.incrementAndGet();
                throw new IllegalStateException("recovery failed");
            })
            .build();
        RateLimiter limiter = factory.create("orders", Algorithm.FIXED_WINDOW, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        assertThat(recoveries).as("not while Redis answers").hasValue(0);

        redis.kill();
        limiter.tryAcquire("k");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (recoveries.get() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(recoveries.get()).as("recovery actions after failed probes, the first of which threw").isGreaterThanOrEqualTo(2);

        redis.restart();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!factory.isRedisAvailable() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(factory.isRedisAvailable()).as("the probe went on and found Redis again").isTrue();
        factory.close();
    }
}
