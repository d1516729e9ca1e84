package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.algorithm.Model;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.core.RedisCallback;

/**
 * Settled costs on Redis (docs/settled-costs.md): the charge script ({@code charge.lua}) and the refund
 * script settle exactly as the twins do, and as the reference model (written from the docs alone, taking a
 * charge in one step where the script takes it in chunks) does, every algorithm, several limits, callers waiting too; the key
 * keeps a TTL that lasts until its debt is paid off; and instances settling concurrently charge exactly
 * what their calls cost.
 */
@RedisTest
class SettleTests {

    /** A time at the start of a 10 s and of a 1 min window. */
    static final long T0 = 1_800_000_000_000_000L;

    static final String[] KEYS = { "alice", "bob", "carol" };

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aChargeIntoDebtDelaysLaterCallsAlikeOnBothBackends(Algorithm algorithm) {
        VirtualClock clock = new VirtualClock(T0);
        RateLimiterConfig config = RateLimiterConfig.of(algorithm, LimitSpec.of(10, Duration.ofSeconds(10)));
        RedisRateLimiter redis = (RedisRateLimiter) Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("debt", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("debt", config);
        for (RateLimiter limiter : List.of(redis, memory)) {
            clock.set(T0);
            assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
            Quota quota = limiter.settle("k", 2, 17);
            assertThat(quota.remaining()).isZero();
            // Windows: nothing until the 17 leave; buckets: 7 owed, paid at 1 a second, then 1 to take.
            long first = algorithm.isBucket() ? 8_000_000 : 10_000_000;
            assertThat(admittedAt(clock, limiter, T0 + first - 1)).as(limiter.toString()).isZero();
            assertThat(admittedAt(clock, limiter, T0 + first)).as(limiter.toString()).isEqualTo(algorithm.isBucket() ? 1 : 10);
        }
        // The key lives as long as its debt: 17 s for a bucket (whole again after 17 s), else the window.
        clock.set(T0);
        redis.tryAcquire("fresh", 1);
        Quota settled = redis.settle("fresh", 1, 17);
        long pttl = TestRedisSupport.pttl(TestRedisSupport.shared(), redis.redisKey("fresh"));
        long expected = settled.resetAfter().toMillis();
        assertThat(expected).isEqualTo(algorithm.isBucket() ? 17_000 : 10_000);
        assertThat(pttl).isBetween(expected - 1_000, expected);
        assertThat(redis.redisKey("fresh")).contains("{debt:fresh}");
    }

    /**
     * settleAsync through the reactive API settles as settle does on Redis and as the twin does in memory:
     * a charge into debt, a refund, a cost as estimated (null, nothing asked), a bad argument at once.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void anAsynchronousSettlementSettlesAsTheBlockingOneDoes(Algorithm algorithm) {
        VirtualClock clock = new VirtualClock(T0);
        RateLimiterConfig config = RateLimiterConfig.of(algorithm, LimitSpec.of(10, Duration.ofSeconds(10)));
        RateLimiter async = RedisRateLimiterFactory.builder(TestRedisSupport.shared())
            .reactiveRedis(TestRedisSupport.sharedReactive())
            .keyPrefix(TestRedisSupport.uniquePrefix())
            .clock(clock)
            .build()
            .create("settled", config);
        RateLimiter blocking = Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("settled", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("settled", config);
        List<RateLimiter> limiters = List.of(async, blocking, memory);
        for (RateLimiter limiter : limiters) {
            assertThat(limiter.tryAcquire("charged", 4).allowed()).isTrue();
            assertThat(limiter.tryAcquire("refunded", 6).allowed()).isTrue();
        }
        Quota charged = async.settleAsync("charged", 4, 13).toCompletableFuture().join();
        assertThat(charged).isEqualTo(blocking.settle("charged", 4, 13));
        // In memory, the interface's settleAsync: settled at once.
        CompletableFuture<Quota> inMemory = memory.settleAsync("charged", 4, 13).toCompletableFuture();
        assertThat(inMemory).isDone();
        assertThat(quotaOf(charged)).isEqualTo(quotaOf(inMemory.join()));
        Quota refunded = async.settleAsync("refunded", 6, 2).toCompletableFuture().join();
        assertThat(refunded).isEqualTo(blocking.settle("refunded", 6, 2));
        assertThat(quotaOf(refunded)).isEqualTo(quotaOf(memory.settle("refunded", 6, 2)));
        assertThat(refunded.remaining()).isEqualTo(8);
        assertThat(async.settleAsync("refunded", 3, 3).toCompletableFuture().join()).isNull();
        assertThatThrownBy(() -> async.settleAsync("refunded", 0, 1)).isInstanceOf(IllegalArgumentException.class);
        // Later calls find the same state on every backend: the debt paid off alike.
        clock.advance(Duration.ofSeconds(4));
        List<Decision> later = limiters.stream().map((limiter) -> limiter.tryAcquire("charged", 1)).toList();
        assertThat(later).extracting(Decision::allowed, Decision::remaining)
            .containsOnly(tuple(later.get(0).allowed(), later.get(0).remaining()));
        assertThat(later.get(0)).isEqualTo(later.get(1));
    }

    private static List<Object> quotaOf(Quota quota) {
        return List.of(quota.limit(), quota.remaining(), quota.resetAfter());
    }

    /**
     * A calendar day in Berlin: a charge beyond the daily quota is debt until local midnight, on both
     * backends, and the key lives until then.
     */
    @Test
    void aCalendarWindowsDebtEndsAtItsBoundary() {
        java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
        long evening = java.time.LocalDateTime.parse("2026-03-28T22:00").atZone(berlin).toInstant().toEpochMilli() * 1_000;
        long midnight = java.time.LocalDateTime.parse("2026-03-29T00:00").atZone(berlin).toInstant().toEpochMilli() * 1_000;
        VirtualClock clock = new VirtualClock(evening);
        RateLimiterConfig config = RateLimiterConfig.of(Algorithm.FIXED_WINDOW,
                LimitSpec.perCalendar(10, dev.limiter.CalendarWindow.days(berlin)));
        RedisRateLimiter redis = (RedisRateLimiter) Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("daily", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("daily", config);
        for (RateLimiter limiter : List.of(redis, memory)) {
            clock.set(evening);
            limiter.tryAcquire("k", 3);
            Quota quota = limiter.settle("k", 3, 25);
            assertThat(quota.remaining()).isZero();
            assertThat(quota.resetAfter()).isEqualTo(Duration.ofHours(2));
            assertThat(admittedAt(clock, limiter, midnight - 1)).as(limiter.toString()).isZero();
            assertThat(admittedAt(clock, limiter, midnight)).as(limiter.toString()).isEqualTo(10);
        }
    }

        private static long admittedAt(VirtualClock clock, RateLimiter limiter, long at) {
        clock.set(at);
        long admitted = 0;
        while (limiter.tryAcquire("k", 1).allowed()) {
            admitted++;
        }
        return admitted;
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void randomHistoryOfReservationsAndSettlementsGivesEqualAnswers(Algorithm algorithm) {
        replay(algorithm, false, 20261129L, 2_000_000);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
    void busyRandomHistoryWithWaitingCallersGivesEqualAnswers(Algorithm algorithm) {
        replay(algorithm, true, 29L, 300_000);
    }

    /**
     * 600 random steps on both backends, two limits at fractional rates: a call reserves 1 to 4 permits
     * and, when admitted, settles (two in three) at a cost from 0 to 3 times its estimate.
     */
    private static void replay(Algorithm algorithm, boolean waiting, long seed, int maxAdvanceMicros) {
        RateLimiterConfig.Builder builder = RateLimiterConfig.builder(algorithm)
            .limit(algorithm.isBucket() ? LimitSpec.of(7, Duration.ofSeconds(10)).withBurst(9) : LimitSpec.of(7, Duration.ofSeconds(10)))
            .limit(LimitSpec.of(20, Duration.ofMinutes(1)));
        if (waiting) {
            builder.maxWait(Duration.ofSeconds(3));
        }
        RateLimiterConfig config = builder.build();
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);
        RedisRateLimiter redis = (RedisRateLimiter) Backend.REDIS.factory(clock, TestRedisSupport.uniquePrefix()).create("agree", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("agree", config);
        Model model = Model.of(config);
        Map<String, Long> expiresAt = new HashMap<>();
        Random random = new Random(seed); // fixed seed: a failure replays exactly
        int charged = 0;
        int rejected = 0;
        for (int step = 0; step < 600; step++) {
            clock.advanceMicros(random.nextInt(maxAdvanceMicros + 1));
            String key = KEYS[random.nextInt(KEYS.length)];
            String redisKey = redis.redisKey(key);
            Long expires = expiresAt.get(redisKey);
            if (expires != null && clock.nowMicros() >= expires) {
                // The TTL runs in real time; on the virtual clock the key is gone now.
                TestRedisSupport.shared().delete(redisKey);
            }
            long reserved = 1 + random.nextInt(4);
            String where = algorithm + " step " + step + " at " + clock.nowMicros() + " us, key " + key + ", reserved " + reserved;
            Decision fromRedis = redis.tryAcquire(key, reserved);
            Decision fromMemory = memory.tryAcquire(key, reserved);
            assertEquals(fromRedis, fromMemory, where);
            assertEquals(model.tryAcquire(key, reserved, clock.nowMicros()), fromMemory, "model, " + where);
            long resetAfter = fromRedis.allowed() ? fromRedis.resetAfter().toNanos() / 1_000 : 0;
            if (fromRedis.allowed() && random.nextInt(3) > 0) {
                long actual = random.nextInt((int) (3 * reserved + 1));
                where += ", actual " + actual;
                Quota settledRedis = redis.settle(key, reserved, actual);
                Quota settledMemory = memory.settle(key, reserved, actual);
                if (actual == reserved) {
                    assertThat(settledRedis).isNull();
                    assertThat(settledMemory).isNull();
                }
                else {
                    assertEquals(settledRedis.limit(), settledMemory.limit(), where);
                    assertEquals(settledRedis.remaining(), settledMemory.remaining(), where);
                    assertEquals(settledRedis.resetAfter(), settledMemory.resetAfter(), where);
                    Quota fromModel = (actual > reserved) ? model.charge(key, actual - reserved, clock.nowMicros())
                            : model.refund(key, reserved - actual, clock.nowMicros());
                    assertEquals(fromModel.limit(), settledMemory.limit(), "model, " + where);
                    assertEquals(fromModel.remaining(), settledMemory.remaining(), "model, " + where);
                    assertEquals(fromModel.resetAfter(), settledMemory.resetAfter(), "model, " + where);
                    resetAfter = settledRedis.resetAfter().toNanos() / 1_000;
                    charged += (actual > reserved) ? 1 : 0;
                    if (resetAfter > 0) {
                        long ttl = TestRedisSupport.pttl(TestRedisSupport.shared(), redisKey);
                        assertThat(ttl).as("PTTL after a settlement, " + where).isBetween((resetAfter + 999) / 1_000 - 1_000,
                                (resetAfter + 999) / 1_000);
                    }
                }
            }
            rejected += fromRedis.allowed() ? 0 : 1;
            if (resetAfter > 0) {
                expiresAt.put(redisKey, clock.nowMicros() + resetAfter);
            }
            Quota quotaRedis = redis.quota(key);
            Quota quotaMemory = memory.quota(key);
            assertEquals(quotaRedis.remaining(), quotaMemory.remaining(), where + ", quota after");
            assertEquals(quotaRedis.resetAfter(), quotaMemory.resetAfter(), where + ", quota after");
            assertEquals(model.quota(key, clock.nowMicros()), quotaMemory, "model, " + where + ", quota after");
        }
        assertThat(charged).as("charges").isGreaterThan(waiting ? 10 : 50);
        
        assertThat(rejected).as("rejected").isGreaterThan(20);
    }

    /**
     * Three instances, eight threads each, reserve 1 to 5 permits of one fixed-window key at one instant
     * and settle each admitted call at a cost from 0 to 10: the count in Redis is exactly what the
     * admitted calls cost, and beyond the limit by no more than the charges above their estimates (the
     * debt bound of docs/settled-costs.md).
     */
    @Test
    void instancesSettlingConcurrentlyChargeExactlyWhatTheCallsCost() throws Exception {
        long limit = 2_000;
        VirtualClock clock = new VirtualClock(T0);
        String prefix = TestRedisSupport.uniquePrefix();
        RateLimiterConfig config = RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.of(limit, Duration.ofHours(1)));
        List<RedisRateLimiter> instances = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            instances.add((RedisRateLimiter) Backend.REDIS.factory(clock, prefix).create("shared", config));
        }
        AtomicLong cost = new AtomicLong();
        AtomicLong over = new AtomicLong();
        AtomicLong admitted = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(24);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                RedisRateLimiter limiter = instances.get(t % 3);
                Random random = new Random(t);
                running.add(threads.submit(() -> {
                    for (int call = 0; call < 150; call++) {
                        long reserved = 1 + random.nextInt(5);
                        if (limiter.tryAcquire("k", reserved).allowed()) {
                            long actual = random.nextInt(11);
                            limiter.settle("k", reserved, actual);
                            admitted.incrementAndGet();
                            cost.addAndGet(actual);
                            over.addAndGet(Math.max(0, actual - reserved));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        }
        finally {
            threads.shutdownNow();
        }
        long used = usedInRedis(instances.get(0).redisKey("k"));
        assertThat(admitted.get()).as("admitted calls").isGreaterThan(100);
        assertThat(cost.get()).as("the calls cost more than the limit: the key went into debt").isGreaterThan(limit);
        assertThat(used).as("permits counted in Redis").isEqualTo(cost.get());
        assertThat(used).as("beyond the limit by at most the charges above the estimates").isLessThanOrEqualTo(limit + over.get());
    }

    /** The permits a fixed window's state counts (fixed-window.lua: two doubles, little-endian, index and used). */
    private static long usedInRedis(String redisKey) {
        byte[] state = TestRedisSupport.shared().execute((RedisCallback<byte[]>) c -> c.stringCommands().get(redisKey.getBytes(StandardCharsets.UTF_8)));
        assertThat(state).hasSize(16);
        return (long) ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN).getDouble(8);
    }
}
