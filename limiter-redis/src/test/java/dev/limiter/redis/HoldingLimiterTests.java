package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Decisions that read a hold (the outgoing-call integration's): the hold is one companion key in the
 * limiter's hash tag, read by the decision's own script; while it lasts, every algorithm rejects with
 * retry-after the hold's remaining time, its state untouched, on every instance; leased permits and the
 * deny cache never let a held call pass; and no companion kind names another feature's key.
 */
@RedisTest
class HoldingLimiterTests {

    final VirtualClock clock = new VirtualClock();

    final String prefix = TestRedisSupport.uniquePrefix();

    final StringRedisTemplate redis = TestRedisSupport.shared();

    final List<RedisRateLimiterFactory> factories = new ArrayList<>();

    @AfterEach
    void close() {
        factories.forEach(RedisRateLimiterFactory::close);
    }

    /** One instance of the application: its own factory on the shared Redis and clock. */
    RedisRateLimiterFactory instance(int denyCacheKeys) {
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(redis).keyPrefix(prefix).clock(clock);
        if (denyCacheKeys > 0) {
            builder.localDenyCache(denyCacheKeys);
        }
        RedisRateLimiterFactory factory = builder.build();
        factories.add(factory);
        return factory;
    }

    static RateLimiterConfig threePerMinute(Algorithm algorithm) {
        return RateLimiterConfig.builder(algorithm).limit(LimitSpec.of(3, Duration.ofMinutes(1))).build();
    }

    /** The key's state in Redis, serialized (DUMP), to tell whether anything touched it. */
    byte[] dump(String key) {
        return redis.execute((RedisCallback<byte[]>) (connection) -> connection.keyCommands().dump(key.getBytes(StandardCharsets.UTF_8)));
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aHoldStoredByOneInstanceRejectsTheOthersWithoutTouchingTheState(Algorithm algorithm) throws Exception {
        RedisRateLimiterFactory one = instance(0);
        RedisRateLimiterFactory other = instance(0);
        HoldingLimiter holding = one.holding(one.create("partner", threePerMinute(algorithm)));
        HoldingLimiter holder = other.holding(other.create("partner", threePerMinute(algorithm)));
        RedisRateLimiter limiter = (RedisRateLimiter) holding.limiter();

        HoldingLimiter.Answer first = holding.tryAcquire("acme", 1);
        // A key never held, asked at the same instants as "acme" but for the held calls.
        Decision twin = limiter.tryAcquire("twin", 1);
        assertThat(first.decision()).isEqualTo(twin);
        assertThat(first.held()).isFalse();
        assertThat(first.decision().allowed()).isTrue();
        assertThat(first.decision().remaining()).isEqualTo(2);
        byte[] state = dump(limiter.redisKey("acme"));
        long scripts = limiter.scriptCalls();

        holder.hold("acme", Duration.ofSeconds(30));
        HoldingLimiter.Answer held = holding.tryAcquire("acme", 1);
        assertThat(held.held()).isTrue();
        assertThat(held.decision().rejected()).isTrue();
        assertThat(held.decision().retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(held.decision().violatedLimit()).isNull();
        assertThat(held.decision().source()).isEqualTo(DecisionSource.REDIS);
        HoldingLimiter.Answer heldAsync = holding.tryAcquireAsync("acme", 1).toCompletableFuture().get();
        assertThat(heldAsync.held()).isTrue();
        assertThat(heldAsync.decision().retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(limiter.scriptCalls() - scripts).as("one script per decision, the hold read in it").isEqualTo(2);
        assertThat(dump(limiter.redisKey("acme"))).as("the key's state while held").isEqualTo(state);
        // Another key of the limiter is not held.
        assertThat(holding.tryAcquire("other", 1).held()).isFalse();

        clock.advance(Duration.ofSeconds(30));
        HoldingLimiter.Answer after = holding.tryAcquire("acme", 1);
        assertThat(after.held()).isFalse();
        assertThat(after.decision().allowed()).isTrue();
        assertThat(after.decision()).as("the held calls took nothing").isEqualTo(limiter.tryAcquire("twin", 1));
    }

    /** Through the reactive API too, the decision reads the hold in its one script. */
    @Test
    void aReactiveDecisionReadsTheHoldToo() throws Exception {
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(redis).reactiveRedis(TestRedisSupport.sharedReactive())
            .keyPrefix(prefix).clock(clock).build();
        factories.add(factory);
        HoldingLimiter holding = factory.holding(factory.create("partner", threePerMinute(Algorithm.SLIDING_LOG)));
        RedisRateLimiter limiter = (RedisRateLimiter) holding.limiter();
        assertThat(holding.tryAcquireAsync("acme", 1).toCompletableFuture().get().decision().remaining()).isEqualTo(2);
        holding.hold("acme", Duration.ofSeconds(12));
        long scripts = limiter.scriptCalls();
        HoldingLimiter.Answer held = holding.tryAcquireAsync("acme", 1).toCompletableFuture().get();
        assertThat(held.held()).isTrue();
        assertThat(held.decision().retryAfter()).isEqualTo(Duration.ofSeconds(12));
        assertThat(limiter.scriptCalls() - scripts).isEqualTo(1);
        clock.advance(Duration.ofSeconds(12));
        assertThat(holding.tryAcquireAsync("acme", 1).toCompletableFuture().get().decision().remaining()).isEqualTo(1);
    }

    @Test
    void aHoldIsOneCompanionKeyInTheLimitersHashTagKeptAsLongAsTheLongestHold() {
        RedisRateLimiterFactory factory = instance(0);
        HoldingLimiter holding = factory.holding(factory.create("partner", threePerMinute(Algorithm.GCRA)));
        String key = prefix + ":{partner:a%7Db}:companion:hold";
        assertThat(factory.companionKey("partner", "a}b", "hold")).isEqualTo(key);

        assertThat(holding.holdRemaining("a}b")).isZero();
        holding.hold("a}b", Duration.ofSeconds(30));
        assertThat(holding.holdRemaining("a}b")).isEqualTo(Duration.ofSeconds(30));
        assertThat(TestRedisSupport.pttl(redis, key)).isBetween(1L, 30_000L);
        // A shorter hold keeps the longer one; another key is not held.
        clock.advance(Duration.ofSeconds(10));
        holding.hold("a}b", Duration.ofSeconds(5));
        assertThat(holding.holdRemaining("a}b")).isEqualTo(Duration.ofSeconds(20));
        assertThat(holding.holdRemaining("a")).isZero();
        clock.advance(Duration.ofSeconds(20));
        assertThat(holding.holdRemaining("a}b")).isZero();
    }

    /** A plan's limiter keeps its hold in its own hash tag, beside its own state. */
    @Test
    void aPlansHoldIsInThePlansHashTag() {
        RedisRateLimiterFactory factory = instance(0);
        RedisRateLimiter limiter = (RedisRateLimiter) factory.create("partner", "pro", threePerMinute(Algorithm.GCRA));
        HoldingLimiter holding = factory.holding(limiter);
        holding.hold("acme", Duration.ofSeconds(5));
        assertThat(TestRedisSupport.exists(redis, prefix + ":{partner/pro:acme}:companion:hold")).isTrue();
        assertThat(holding.tryAcquire("acme", 1).held()).isTrue();
    }

    /**
     * Permits leased before a hold do not pass it: a decision reading a hold never takes leased permits (nor
     * leases), so every held call goes to Redis and is held at once. Calls that do not read holds still
     * take their leased permits.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void permitsLeasedBeforeAHoldDoNotPassIt(Algorithm algorithm) {
        RedisRateLimiterFactory one = instance(0);
        RedisRateLimiterFactory other = instance(0);
        RateLimiterConfig config = RateLimiterConfig.builder(algorithm).limit(LimitSpec.of(100, Duration.ofHours(1)))
            .lease(8, Duration.ofSeconds(3)).build();
        RedisRateLimiter limiter = (RedisRateLimiter) one.create("partner", config);
        limiter.tryAcquire("acme", 1);
        limiter.tryAcquire("acme", 1);
        assertThat(limiter.leased("acme")).as("permits leased by the hot key").isPositive();
        HoldingLimiter holding = one.holding(limiter);
        other.holding(other.create("partner", config)).hold("acme", Duration.ofSeconds(10));
        for (int i = 0; i < 3; i++) {
            assertThat(holding.tryAcquire("acme", 1).held()).isTrue();
        }
        assertThat(limiter.tryAcquire("acme", 1).source()).isEqualTo(DecisionSource.LEASE);
    }

    /**
     * A hold's rejection is not the key's state: the deny cache does not remember it, so a call that does
     * not read holds is decided by Redis, and a held call is held by Redis each time.
     */
    @Test
    void theDenyCacheDoesNotRememberAHoldsRejection() {
        RedisRateLimiterFactory one = instance(100);
        RateLimiter limiter = one.create("partner", threePerMinute(Algorithm.FIXED_WINDOW));
        HoldingLimiter holding = one.holding(limiter);
        holding.hold("acme", Duration.ofSeconds(10));
        assertThat(holding.tryAcquire("acme", 1).held()).isTrue();
        Decision plain = limiter.tryAcquire("acme", 1);
        assertThat(plain.allowed()).isTrue();
        assertThat(plain.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(holding.tryAcquire("acme", 1).held()).isTrue();
    }

    /**
     * No kind of companion key, whatever its letters, is the key of another feature of the same limiter and
     * user key (a concurrency limit's {@code cc}, {@code ccq} and {@code cct} are such), and every one is in the same hash tag.
     */
    @ParameterizedTest
    @ValueSource(strings = { "cc", "ccq", "cct", "sw", "fw", "gc", "tb", "lb", "sl", "hold", "companion" })
    void noCompanionKindNamesAnotherFeaturesKey(String kind) {
        RedisRateLimiterFactory factory = instance(0);
        String companion = factory.companionKey("orders", "alice", kind);
        List<String> features = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.values()) {
            features.add(((RedisRateLimiter) factory.create("orders", threePerMinute(algorithm))).redisKey("alice"));
        }
        RedisConcurrencyLimiter concurrency = (RedisConcurrencyLimiter) factory.createConcurrencyLimiter("orders", ConcurrencyLimiterConfig.of(2));
        features.add(concurrency.redisKey("alice"));
        features.add(concurrency.queueKey("alice"));
        features.add(concurrency.ticketsKey("alice"));
        for (String feature : features) {
            assertThat(companion).isNotEqualTo(feature);
            assertThat(hashTag(companion)).isEqualTo(hashTag(feature));
        }
        assertThat(companion).isEqualTo(prefix + ":{orders:alice}:companion:" + kind);
    }

    @Test
    void onlyTheFactorysOwnLimitersReadHolds() {
        RedisRateLimiterFactory factory = instance(0);
        RateLimiter memory = InMemoryRateLimiterFactory.builder().build().create("partner", threePerMinute(Algorithm.GCRA));
        assertThatThrownBy(() -> factory.holding(memory)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not one of");
        RateLimiter another = instance(0).create("partner", threePerMinute(Algorithm.GCRA));
        assertThatThrownBy(() -> factory.holding(another)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> factory.companionKey("orders", "alice", "cc2")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("cc2");
    }

    private static String hashTag(String key) {
        return key.substring(key.indexOf('{') + 1, key.indexOf('}'));
    }
}
