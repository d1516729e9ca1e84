package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;

/**
 * The local deny cache: after Redis rejects a key, the same request is rejected here until the
 * retry-after Redis gave, without a call to Redis; then Redis decides again.
 */
@RedisTest
class LocalDenyCacheTests {

    static final LimitSpec TWO_PER_TEN_SECONDS = LimitSpec.of(2, Duration.ofSeconds(10));

    final VirtualClock clock = new VirtualClock();

    final List<DecisionSource> sources = new CopyOnWriteArrayList<>();

    RedisRateLimiterFactory factory(int maxKeys) {
        return RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(TestRedisSupport.uniquePrefix())
            .clock(clock)
            .listener((event) -> sources.add(event.decision().source()))
            .localDenyCache(maxKeys).build();
    }

    long redisCalls() {
        return sources.stream().filter(DecisionSource.REDIS::equals).count();
    }

    @Test
    void aFloodOnARejectedKeyCostsRedisOneCallPerRetryAfterPeriod() {
        RateLimiter limiter = factory(100).create("flood", Algorithm.FIXED_WINDOW, TWO_PER_TEN_SECONDS);
        // 4 s into a 10 s window: the rejection's retry-after is the 6 s left of it.
        clock.advance(Duration.ofSeconds(4));
        limiter.tryAcquire("k");
        limiter.tryAcquire("k");
        Decision fromRedis = limiter.tryAcquire("k");
        assertThat(fromRedis.rejected()).isTrue();
        assertThat(fromRedis.retryAfter()).isEqualTo(Duration.ofSeconds(6));
        assertThat(redisCalls()).isEqualTo(3);

        clock.advance(Duration.ofSeconds(1));
        for (int i = 0; i < 1000; i++) {
            Decision cached = limiter.tryAcquire("k");
            assertThat(cached.rejected()).isTrue();
            assertThat(cached.retryAfter()).isEqualTo(Duration.ofSeconds(5).minusMillis(4 * i));
            assertThat(cached.limit()).isEqualTo(2);
            assertThat(cached.violatedLimit()).isEqualTo(TWO_PER_TEN_SECONDS);
            clock.advanceMicros(4_000);
        }
        // 1000 × 4 ms = 4 s of flood, all inside the retry-after: Redis heard none of it.
        assertThat(redisCalls()).isEqualTo(3);
        assertThat(sources.stream().filter(DecisionSource.LOCAL_DENY_CACHE::equals).count()).isEqualTo(1000);

        // At the retry-after Redis decides again, and admits: the window has turned.
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        assertThat(redisCalls()).isEqualTo(4);
    }

    @Test
    void otherKeysAndCheaperRequestsStillAskRedis() {
        RateLimiter limiter = factory(100).create("cheaper", Algorithm.TOKEN_BUCKET, LimitSpec.of(10, Duration.ofSeconds(10)));
        assertThat(limiter.tryAcquire("k", 8).allowed()).isTrue();
        // 2 tokens left: asking for 5 is rejected and remembered for 5 or more.
        assertThat(limiter.tryAcquire("k", 5).rejected()).isTrue();
        assertThat(limiter.tryAcquire("k", 7).rejected()).isTrue();
        assertThat(redisCalls()).isEqualTo(2);
        // Fewer permits may pass sooner, so Redis decides them.
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
        assertThat(limiter.tryAcquire("other", 5).allowed()).isTrue();
        assertThat(redisCalls()).isEqualTo(4);
    }

    @Test
    void limitersSharingAFactoryDoNotShareRejections() {
        RedisRateLimiterFactory factory = factory(100);
        RateLimiter strict = factory.create("strict", Algorithm.FIXED_WINDOW, LimitSpec.of(1, Duration.ofSeconds(10)));
        RateLimiter loose = factory.create("loose", Algorithm.FIXED_WINDOW, TWO_PER_TEN_SECONDS);
        strict.tryAcquire("k");
        assertThat(strict.tryAcquire("k").rejected()).isTrue();
        assertThat(loose.tryAcquire("k").allowed()).isTrue();
        assertThat(sources).containsExactly(DecisionSource.REDIS, DecisionSource.REDIS, DecisionSource.REDIS);
    }

    @Test
    void aRequestThatCanNeverPassIsNotRemembered() {
        RateLimiter limiter = factory(100).create("never", Algorithm.GCRA, LimitSpec.of(2, Duration.ofSeconds(10)));
        assertThat(limiter.tryAcquire("k", 3).neverAllowed()).isTrue();
        assertThat(limiter.tryAcquire("k", 3).neverAllowed()).isTrue();
        assertThat(sources).containsOnly(DecisionSource.REDIS);
    }

    @Test
    void theCacheIsBounded() {
        LocalDenyCache cache = new LocalDenyCache(2, clock);
        Decision rejected = new Decision(false, 2, 0, Duration.ofSeconds(10), Duration.ofSeconds(10));
        for (int i = 0; i < 50; i++) {
            cache.remember("key" + i, 1, rejected);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(2);
        assertThat(cache.rejection("key49", 1)).isNotNull();
    }

    @Test
    void rememberedRejectionsExpireAtTheirRetryAfter() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(3), Duration.ofSeconds(2)));
        clock.advance(Duration.ofMillis(1999));
        Decision last = cache.rejection("k", 1);
        assertThat(last.retryAfter()).isEqualTo(Duration.ofMillis(1));
        assertThat(last.resetAfter()).isEqualTo(Duration.ofMillis(1001));
        clock.advance(Duration.ofMillis(1));
        assertThat(cache.rejection("k", 1)).isNull();
        // Dropped from memory too, once the cache's timer wheel (about a second per slot) passes it.
        clock.advance(Duration.ofSeconds(5));
        assertThat(cache.size()).isZero();
    }

    @Test
    void aCacheWithoutRoomIsRefused() {
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(TestRedisSupport.shared());
        assertThatIllegalArgumentException().isThrownBy(() -> builder.localDenyCache(0)).withMessageContaining("maxKeys was 0");
    }

    @Test
    void whenARejectionRunsOutOneCallerAsksRedisAndTheOthersWaitForItsAnswer() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofSeconds(1)));
        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.rejection("k", 1)).as("the first caller claims the expired rejection").isNull();
        Decision held = cache.rejection("k", 1);
        assertThat(held).as("a concurrent caller is held back for one more period").isNotNull();
        assertThat(held.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofMillis(10));
        assertThat(cache.rejection("k", 1).retryAfter()).isEqualTo(Duration.ofMillis(990));

        // Redis admits the claimant and permits are left: the others ask Redis again at once.
        cache.remember("k", 1, new Decision(true, 2, 1, Duration.ofSeconds(1), Duration.ZERO));
        assertThat(cache.rejection("k", 1)).isNull();
        assertThat(cache.rejection("k", 1)).isNull();
    }

    @Test
    void anAdmissionThatLeavesNothingKeepsTheClaim() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofSeconds(1)));
        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.rejection("k", 1)).isNull();
        cache.remember("k", 1, new Decision(true, 2, 0, Duration.ofSeconds(2), Duration.ZERO));
        assertThat(cache.rejection("k", 1)).as("nothing is left, so the flood stays local").isNotNull();
        // The claim lasts one period at most: then the next caller claims it and asks Redis.
        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.rejection("k", 1)).isNull();
        assertThat(cache.rejection("k", 1)).isNotNull();
        // A fresh rejection from Redis replaces the claim with its own retry-after.
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofMillis(300)));
        assertThat(cache.rejection("k", 1).retryAfter()).isEqualTo(Duration.ofMillis(300));
    }

    @Test
    void callersWaitForTheClaimantsAnswerEvenWhenItTakesLongerThanThePeriod() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        // Just before a bucket's next token the retry-after is shorter than a round trip to Redis.
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofMillis(3)));
        clock.advance(Duration.ofMillis(3));
        assertThat(cache.rejection("k", 1)).as("the claimant asks Redis").isNull();
        clock.advance(Duration.ofMillis(2));
        assertThat(cache.rejection("k", 1).retryAfter()).isEqualTo(Duration.ofMillis(1));
        for (int i = 0; i < 50; i++) {
            clock.advance(Duration.ofMillis(2));
            Decision held = cache.rejection("k", 1);
            assertThat(held).as("100 ms later the answer is still awaited, so nobody else asks").isNotNull();
            assertThat(held.retryAfter()).as("ask again shortly").isEqualTo(Duration.ofMillis(1));
        }
        // The answer: rejected again, for 40 ms.
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofMillis(40)));
        assertThat(cache.rejection("k", 1).retryAfter()).isEqualTo(Duration.ofMillis(40));
        clock.advance(Duration.ofMillis(40));
        assertThat(cache.rejection("k", 1)).isNull();
    }

    @Test
    void anAnswerThatNeverComesIsGivenUpAfterTheAnswerTimeout() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofMillis(3)));
        clock.advance(Duration.ofMillis(3));
        assertThat(cache.rejection("k", 1)).isNull();
        clock.advanceMicros(LocalDenyCache.ANSWER_TIMEOUT_MICROS - 1);
        assertThat(cache.rejection("k", 1)).as("still waiting").isNotNull();
        clock.advanceMicros(1);
        assertThat(cache.rejection("k", 1)).as("given up: the next caller claims it").isNull();
        assertThat(cache.rejection("k", 1)).isNotNull();
    }

    @Test
    void aClaimWhoseCallFailsHoldsOnlyToTheEndOfItsPeriod() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofMillis(30)));
        clock.advance(Duration.ofMillis(30));
        assertThat(cache.rejection("k", 1)).isNull();
        clock.advance(Duration.ofMillis(10));
        // Redis failed the claimant: no answer will come, the failure policy decided its call.
        cache.settle("k");
        assertThat(cache.rejection("k", 1).retryAfter()).isEqualTo(Duration.ofMillis(20));
        clock.advance(Duration.ofMillis(20));
        assertThat(cache.rejection("k", 1)).as("its period is over: the next caller asks Redis").isNull();
    }

    @Test
    void aClaimOnARejectionOfAMonthHoldsASecondAtMostNotAnotherMonth() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        // A calendar month's quota spent: Redis rejects until the month ends, 30 days away.
        cache.remember("k", 1, new Decision(false, 3, 0, Duration.ofDays(30), Duration.ofDays(30)));
        clock.advance(Duration.ofDays(30));
        assertThat(cache.rejection("k", 1)).as("the month is over: the first caller asks Redis").isNull();
        // Redis failed the claimant: no answer will come, the failure policy decided its call.
        cache.settle("k");
        assertThat(cache.rejection("k", 1).retryAfter()).as("the flood waits a second, not a month").isEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.rejection("k", 1)).as("the next caller asks Redis again").isNull();
        // Redis admits it and that was the new month's last permit: the claim again holds a second, not 30 days.
        cache.remember("k", 1, new Decision(true, 3, 0, Duration.ofDays(31), Duration.ZERO));
        assertThat(cache.rejection("k", 1)).isNotNull();
        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.rejection("k", 1)).as("Redis tells the new month's retry-after").isNull();
    }

    @Test
    void aFloodThatGoesOnAfterAShortClaimStillSendsOneCallerToRedis() {
        LocalDenyCache cache = new LocalDenyCache(10, clock);
        cache.remember("k", 1, new Decision(false, 2, 0, Duration.ofSeconds(2), Duration.ofMillis(15)));
        clock.advance(Duration.ofMillis(15));
        assertThat(cache.rejection("k", 1)).isNull();
        // The claimant's answer, 40 ms later: admitted, nothing left. Its 15 ms claim is long over.
        clock.advance(Duration.ofMillis(40));
        cache.remember("k", 1, new Decision(true, 2, 0, Duration.ofSeconds(1), Duration.ZERO));
        assertThat(cache.rejection("k", 1)).as("the next caller claims it").isNull();
        assertThat(cache.rejection("k", 1)).as("the rest of the flood waits for that answer instead of all asking Redis").isNotNull();
    }
}
