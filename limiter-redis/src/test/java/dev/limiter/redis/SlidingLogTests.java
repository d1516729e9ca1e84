package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.zset.Tuple;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Sliding-log on both backends, with the values docs/algorithms.md gives. Unless a test says
 * otherwise: 5 per 10 s, starting 3.25 s into an epoch-aligned hour. In Redis the log is a sorted
 * set with one entry per admitted request (member: running permit total and cost).
 */
@RedisTest
class SlidingLogTests {

    static final long E = SlidingWindowTests.E;

    static final long SECOND = 1_000_000;

    static final long W = 10 * SECOND;

    static final LimitSpec FIVE_PER_10S = LimitSpec.of(5, Duration.ofSeconds(10));

    static final LimitSpec THREE_PER_SECOND = LimitSpec.of(3, Duration.ofSeconds(1));

    static final LimitSpec TEN_PER_MINUTE = LimitSpec.of(10, Duration.ofMinutes(1));

    final long t0 = E + 3_250_000;

    final VirtualClock clock = new VirtualClock(t0);

    final String prefix = TestRedisSupport.uniquePrefix();

    final StringRedisTemplate redis = TestRedisSupport.shared();

    RateLimiter limiter(Backend backend, LimitSpec... limits) {
        return backend.factory(clock, prefix).create("sl", RateLimiterConfig.of(Algorithm.SLIDING_LOG, limits));
    }

    static Duration micros(long micros) {
        return Duration.of(micros, ChronoUnit.MICROS);
    }

    static Decision rejected(long limit, long remaining, Duration resetAfter, Duration retryAfter, LimitSpec violated) {
        return new Decision(false, limit, remaining, resetAfter, retryAfter, Duration.ZERO, violated);
    }

    long entries(RateLimiter limiter) {
        Long size = redis.opsForZSet().zCard(SlidingWindowTests.redisKey(limiter));
        return (size != null) ? size : 0;
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void limitIsReachedExactlyAndRejectedCallsTakeNothing(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("k")).isEqualTo(new Decision(true, 5, 4 - i, Duration.ofSeconds(10), Duration.ZERO));
        }
        Decision sixth = limiter.tryAcquire("k");
        assertThat(sixth).isEqualTo(rejected(5, 0, Duration.ofSeconds(10), Duration.ofSeconds(10), FIVE_PER_10S));
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k")).isEqualTo(sixth);
        }
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(5, 0, Duration.ofSeconds(9), Duration.ofSeconds(9), FIVE_PER_10S));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void exactOverEveryWindowLongSpan(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 5).allowed()).isTrue();
        clock.set(t0 + W - 1);
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k")).as("1 us before the burst leaves")
                .isEqualTo(rejected(5, 0, micros(1), micros(1), FIVE_PER_10S));
        }
        clock.set(t0 + W);
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).as("call %d once the burst left", i + 1).isTrue();
        }
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void admitsExactlyWhenTheLastWindowHasRoom(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        Random random = new Random(7);
        List<Long> log = new ArrayList<>(); // every admitted permit's time
        for (int i = 0; i < 1500; i++) {
            clock.advanceMicros(random.nextInt(random.nextBoolean() ? 100_000 : 3_000_000));
            long now = clock.nowMicros();
            long cost = 1 + random.nextInt(2);
            long live = log.stream().filter(e -> e > now - W).count();
            Decision d = limiter.tryAcquire("k", cost);
            assertThat(d.allowed()).as("call %d at %d: %d live, cost %d", i, now, live, cost).isEqualTo(live + cost <= 5);
            if (d.allowed()) {
                for (int p = 0; p < cost; p++) {
                    log.add(now);
                }
            }
            else {
                // Retry-after: when the permit that must leave first has left.
                List<Long> liveTimes = log.stream().filter(e -> e > now - W).toList();
                assertThat(d.retryAfter()).isEqualTo(micros(liveTimes.get((int) (live + cost - 5) - 1) + W - now));
            }
        }
        assertThat(SlidingWindowTests.maxInSpan(log, W)).isEqualTo(5);
    }

    @Test
    void rejectedCallsAreNotLoggedAndARequestIsOneEntryWhateverItsCost() {
        RateLimiter limiter = limiter(Backend.REDIS, FIVE_PER_10S);
        for (int i = 0; i < 3; i++) {
            limiter.tryAcquire("k");
        }
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
        assertThat(entries(limiter)).isEqualTo(4);
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.tryAcquire("k", 1 + i % 3).allowed()).isFalse();
            clock.advance(Duration.ofMillis(100));
        }
        assertThat(entries(limiter)).as("rejected calls log nothing").isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void requestsOfTheSameMicrosecondAreAllLogged(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(4);
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(3);
        // Another instance of the application: its own factory and limiter, the same Redis.
        RateLimiter other = limiter(backend, FIVE_PER_10S);
        Decision fromOther = other.tryAcquire("k", 2);
        if (backend == Backend.REDIS) {
            assertThat(fromOther.remaining()).isEqualTo(1);
            assertThat(entries(limiter)).isEqualTo(3);
            assertThat(limiter.tryAcquire("k", 2).allowed()).isFalse();
        }
        else {
            assertThat(fromOther.remaining()).as("instances share nothing in memory").isEqualTo(3);
        }
        assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(backend == Backend.REDIS ? 0 : 2);
    }

    @Test
    void theLogNeverHoldsMoreEntriesThanTheLargestLimit() {
        RateLimiter limiter = limiter(Backend.REDIS, THREE_PER_SECOND, TEN_PER_MINUTE);
        long most = 0;
        int allowed = 0;
        for (int i = 0; i < 3000; i++) { // a call every 100 ms for 5 minutes
            allowed += limiter.tryAcquire("k").allowed() ? 1 : 0;
            most = Math.max(most, entries(limiter));
            clock.advance(Duration.ofMillis(100));
        }
        assertThat(allowed).isEqualTo(50);
        assertThat(most).isEqualTo(10);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void costAboveOneTakesAllOrNothingAndAboveTheLimitIsNever(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 3).remaining()).isEqualTo(2);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(rejected(5, 2, Duration.ofSeconds(10), Duration.ofSeconds(10), FIVE_PER_10S));
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k", 2)).isEqualTo(new Decision(true, 5, 0, Duration.ofSeconds(10), Duration.ZERO));
        // Permits logged at 0, 0, 0, 1 s, 1 s: one more waits for the 1st to leave, four more for the 4th.
        assertThat(limiter.tryAcquire("k", 1).retryAfter()).isEqualTo(Duration.ofSeconds(9));
        assertThat(limiter.tryAcquire("k", 3).retryAfter()).isEqualTo(Duration.ofSeconds(9));
        assertThat(limiter.tryAcquire("k", 4).retryAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(limiter.tryAcquire("k", 6)).isEqualTo(rejected(5, 0, Duration.ofSeconds(10), Decision.NEVER, FIVE_PER_10S));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void severalLimitsAreCheckedTogetherAndARejectionTakesFromNone(Backend backend) {
        RateLimiter limiter = limiter(backend, THREE_PER_SECOND, TEN_PER_MINUTE);
        long start = E + 250_000;
        clock.set(start);
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k")).isEqualTo(reportingTheSecond(true, 2 - i, Duration.ZERO, null));
        }
        assertThat(limiter.tryAcquire("k")).isEqualTo(reportingTheSecond(false, 0, Duration.ofSeconds(1), THREE_PER_SECOND));

        clock.set(start + SECOND);
        assertThat(limiter.tryAcquire("k", 3).allowed()).as("the rejected call took nothing from the minute").isTrue();
        clock.set(start + 2 * SECOND);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reportingTheSecond(true, 0, Duration.ZERO, null));

        clock.set(start + 3 * SECOND);
        assertThat(limiter.tryAcquire("k", 2)).as("only the minute rejects")
            .isEqualTo(rejected(10, 1, Duration.ofSeconds(59), Duration.ofSeconds(57), TEN_PER_MINUTE));
        assertThat(limiter.tryAcquire("k")).isEqualTo(new Decision(true, 10, 0, Duration.ofMinutes(1), Duration.ZERO));
        // Both reject: the second in 1 s, the minute in 57 s; the longer one is reported.
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(rejected(10, 0, Duration.ofMinutes(1), Duration.ofSeconds(57), TEN_PER_MINUTE));

        // The first 3 leave the minute at 60 s; both limits then have 0 left, and the first one is reported.
        clock.set(start + 60 * SECOND);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(reportingTheSecond(true, 0, Duration.ZERO, null));
        // Both reject for 1 s (the second: the 3 just taken; the minute: the 3 of 1 s): the first is named.
        assertThat(limiter.tryAcquire("k")).isEqualTo(reportingTheSecond(false, 0, Duration.ofSeconds(1), THREE_PER_SECOND));
    }

    /** A decision of 3/1s and 10/1m reporting the second, whole again in 1 s; every limit in 1 min. */
    private static Decision reportingTheSecond(boolean allowed, long remaining, Duration retryAfter, LimitSpec violated) {
        return new Decision(allowed, 3, remaining, Duration.ofMinutes(1), Duration.ofSeconds(1), retryAfter, Duration.ZERO, violated,
                DecisionSource.MEMORY);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLongIdleKeyIsLikeANewOne(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        limiter.tryAcquire("k", 2);
        limiter.tryAcquire("k", 3);
        clock.advance(Duration.ofDays(1));
        assertThat(limiter.tryAcquire("k")).isEqualTo(new Decision(true, 5, 4, Duration.ofSeconds(10), Duration.ZERO));
        if (backend == Backend.REDIS) {
            assertThat(entries(limiter)).as("the old entries were removed").isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aClockGoingBackwardsExpiresNothing(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        clock.set(t0 + 5 * SECOND);
        limiter.tryAcquire("k", 5);
        clock.set(t0);
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(5, 0, Duration.ofSeconds(15), Duration.ofSeconds(15), FIVE_PER_10S));
        clock.set(t0 + 15 * SECOND - 1);
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(micros(1));
        clock.advanceMicros(1);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void permitsTakenWhileTheClockIsBehindAreLoggedAtTheNewestEntry(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        for (int s = 5; s <= 7; s++) {
            clock.set(t0 + s * SECOND);
            limiter.tryAcquire("k"); // at 5 s, 6 s and 7 s
        }
        clock.set(t0 + SECOND);
        assertThat(limiter.tryAcquire("k", 2)).as("logged at 7 s, after the three; reset measured from 1 s")
            .isEqualTo(new Decision(true, 5, 0, Duration.ofSeconds(16), Duration.ZERO));

        clock.set(t0 + 7 * SECOND);
        assertThat(limiter.tryAcquire("k").retryAfter()).as("the permit of 5 s leaves first, at 15 s").isEqualTo(Duration.ofSeconds(8));
        assertThat(limiter.tryAcquire("k", 3).retryAfter()).as("the third oldest is one of 7 s").isEqualTo(Duration.ofSeconds(10));
        clock.set(t0 + 15 * SECOND);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(5, 0, Duration.ofSeconds(10), Duration.ofSeconds(1), FIVE_PER_10S));
        if (backend == Backend.REDIS) {
            String key = SlidingWindowTests.redisKey(limiter);
            assertRunningTotals(key);
            assertThat(log(key)).extracting(Entry::time)
                .as("the entry of 5 s left with the call at 15 s").containsExactly(t0 + 6 * SECOND, t0 + 7 * SECOND, t0 + 7 * SECOND,
                        t0 + 15 * SECOND);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRejectedCallForgetsNothingSoAnEntryCountsAgainWhenTheClockGoesBack(Backend backend) {
        RateLimiter limiter = limiter(backend, FIVE_PER_10S);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue(); // at 0 s
        clock.set(t0 + 5 * SECOND);
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue(); // at 5 s

        // At 10.25 s the permits of 0 s have left: 2 count, and 4 more wait for those of 5 s to leave at 15 s.
        clock.set(t0 + 10_250_000);
        assertThat(limiter.tryAcquire("k", 4)).isEqualTo(rejected(5, 3, Duration.ofMillis(4_750), Duration.ofMillis(4_750), FIVE_PER_10S));
        if (backend == Backend.REDIS) {
            assertThat(entries(limiter)).as("a rejected call removes no entry").isEqualTo(2);
        }
        // Back to 9.5 s, before they left: they count again, until 10 s.
        clock.set(t0 + 9_500_000);
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(5, 0, Duration.ofMillis(5_500), Duration.ofMillis(500), FIVE_PER_10S));
        // An admitted call removes what has left at its time: logged at 10.25 s, nothing can count them again.
        clock.set(t0 + 10_250_000);
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(new Decision(true, 5, 0, Duration.ofSeconds(10), Duration.ZERO));
        if (backend == Backend.REDIS) {
            assertThat(entries(limiter)).isEqualTo(2);
        }
        clock.set(t0 + 9_500_000);
        assertThat(limiter.tryAcquire("k")).as("read at 10.25 s, the newest entry")
            .isEqualTo(rejected(5, 0, Duration.ofMillis(10_750), Duration.ofMillis(5_500), FIVE_PER_10S));
    }

    @Test
    void theEntryThatFillsTheLogNotesWhenOneMorePermitFits() {
        RateLimiter limiter = limiter(Backend.REDIS, FIVE_PER_10S);
        String key = SlidingWindowTests.redisKey(limiter);
        assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue(); // at 0 s
        clock.set(t0 + 4 * SECOND);
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue(); // at 4 s: full
        assertThat(log(key)).as("3 of 5 leave room: no hint; 5 of 5: the permits of 0 s leave at 10 s, 6 s after 4 s")
            .extracting(Entry::total, Entry::time, Entry::fitsAfter, Entry::limit, Entry::cost)
            .containsExactly(tuple(3L, t0, 0L, 5L, 3L), tuple(5L, t0 + 4 * SECOND, 6 * SECOND, 5L, 2L));

        clock.set(t0 + 5 * SECOND);
        assertThat(limiter.tryAcquire("k")).as("answered from the hint")
            .isEqualTo(rejected(5, 0, Duration.ofSeconds(9), Duration.ofSeconds(5), FIVE_PER_10S));
        clock.set(t0 + 10 * SECOND);
        assertThat(limiter.tryAcquire("k", 3)).as("at the hint the 3 permits of 0 s leave; 3 more fill the log until the entry of 4 s leaves")
            .isEqualTo(new Decision(true, 5, 0, Duration.ofSeconds(10), Duration.ZERO));
        assertThat(log(key)).extracting(Entry::fitsAfter).containsExactly(6 * SECOND, 4 * SECOND);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRefundThenAClockGoingBackCountsOnlyTheEntriesStillLogged(Backend backend) {
        LimitSpec twoPer10s = LimitSpec.of(2, Duration.ofSeconds(10));
        RateLimiter limiter = limiter(backend, twoPer10s);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue(); // at 0 s
        clock.set(t0 + 5 * SECOND);
        assertThat(limiter.tryAcquire("k").allowed()).as("the log is full until the permit of 0 s leaves at 10 s").isTrue();
        clock.set(t0 + 10 * SECOND);
        assertThat(limiter.tryAcquire("k").allowed()).as("logged at 10 s, it drops the entry of 0 s for good").isTrue();
        limiter.refund("k", 1);
        // Back to 9 s: the entry of 0 s would count there, but it is gone; the entry of 5 s alone counts.
        // (In Redis the entry of 5 s, newest again, had noted that the log was full until 10 s.)
        clock.set(t0 + 9 * SECOND);
        assertThat(limiter.tryAcquire("k")).isEqualTo(new Decision(true, 2, 0, Duration.ofSeconds(10), Duration.ZERO));
    }

    /**
     * An entry of the log as sliding-log.lua packs its member: total, time, fits after, limit and cost,
     * unsigned big-endian integers of 6, 7, 6, 4 and 4 bytes.
     */
    record Entry(long total, long time, long fitsAfter, long limit, long cost, double score) {

        static Entry of(byte[] member, double score) {
            assertThat(member).as("a member of 27 bytes").hasSize(27);
            return new Entry(number(member, 0, 6), number(member, 6, 7), number(member, 13, 6), number(member, 19, 4),
                    number(member, 23, 4), score);
        }

        private static long number(byte[] bytes, int from, int length) {
            long n = 0;
            for (int i = from; i < from + length; i++) {
                n = (n << 8) | (bytes[i] & 0xff);
            }
            return n;
        }
    }

    /** The log's entries, oldest first. */
    List<Entry> log(String key) {
        Set<Tuple> tuples = redis.execute(
                (RedisCallback<Set<Tuple>>) connection -> connection.zSetCommands().zRangeWithScores(key.getBytes(StandardCharsets.UTF_8), 0, -1));
        assertThat(tuples).isNotNull();
        return tuples.stream().map(tuple -> Entry.of(tuple.getValue(), tuple.getScore())).toList();
    }

    /** Totals rise by each entry's cost, in the order of the set, and each entry's time is its score. */
    void assertRunningTotals(String key) {
        List<Entry> entries = log(key);
        assertThat(entries).isNotEmpty();
        long previous = -1;
        for (Entry entry : entries) {
            assertThat(entry.time()).as("%s", entry).isEqualTo((long) entry.score());
            if (previous >= 0) {
                assertThat(entry.total() - entry.cost()).as("%s after total %d", entry, previous).isEqualTo(previous);
            }
            previous = entry.total();
        }
    }

    @Test
    void redisTtlIsTheResetAfterRoundedUpToMilliseconds() {
        RedisRateLimiter limiter = (RedisRateLimiter) limiter(Backend.REDIS, FIVE_PER_10S);
        for (String key : List.of("a", "b")) {
            clock.set(t0);
            SlidingWindowTests.assertTtlFits(redis, limiter.redisKey(key), limiter.tryAcquire(key));
            clock.set(t0 + 5 * SECOND);
            SlidingWindowTests.assertTtlFits(redis, limiter.redisKey(key), limiter.tryAcquire(key, 4));
        }
        // A rejected call changes nothing, not the entry of 0 s, which has left (the clock may still go
        // back), nor the TTL of the last admitted call: until the entry of 5 s leaves at 15 s.
        clock.set(t0 + 12 * SECOND);
        Decision rejected = limiter.tryAcquire("a", 2);
        assertThat(rejected.allowed()).isFalse();
        assertThat(redis.opsForZSet().zCard(limiter.redisKey("a"))).isEqualTo(2);
        assertThat(TestRedisSupport.pttl(redis, limiter.redisKey("a"))).isLessThanOrEqualTo(10_000).isGreaterThan(10_000 - 2_000);
        // An admitted call removes it and renews the TTL for what is left: until its own entry leaves.
        Decision admitted = limiter.tryAcquire("a");
        assertThat(admitted.resetAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(redis.opsForZSet().zCard(limiter.redisKey("a"))).isEqualTo(2);
        SlidingWindowTests.assertTtlFits(redis, limiter.redisKey("a"), admitted);

        // A window of 300 us: the TTL of an admitted call rounds up to 1 ms rather than down to none.
        RedisRateLimiter short300 = (RedisRateLimiter) limiter(Backend.REDIS, LimitSpec.of(5, Duration.ofNanos(300_000)));
        assertThat(short300.tryAcquire("b", 2).resetAfter()).isEqualTo(micros(300));
        // Read back a moment later in real time: 1 or 0 ms left, or gone (-1 would mean no TTL at all).
        assertThat(TestRedisSupport.pttl(redis, short300.redisKey("b"))).isBetween(-2L, 1L).isNotEqualTo(-1L);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void belowOnePerSecond(Backend backend) {
        RateLimiter limiter = limiter(backend, LimitSpec.of(1, Duration.ofHours(1)));
        assertThat(limiter.tryAcquire("k").resetAfter()).isEqualTo(Duration.ofHours(1));
        clock.advance(Duration.ofMinutes(59));
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(Duration.ofMinutes(1));
        clock.advance(Duration.ofMinutes(1).minus(micros(1)));
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(micros(1));
        clock.advanceMicros(1);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void largestLimitAndWindow(Backend backend) {
        LimitSpec largest = LimitSpec.of(LimitSpec.MAX_LIMIT, LimitSpec.MAX_WINDOW);
        RateLimiter limiter = limiter(backend, largest);
        assertThat(limiter.tryAcquire("k", LimitSpec.MAX_LIMIT)).isEqualTo(new Decision(true, LimitSpec.MAX_LIMIT, 0, LimitSpec.MAX_WINDOW,
                Duration.ZERO));
        if (backend == Backend.REDIS) {
            assertThat(entries(limiter)).as("2^31 - 1 permits, one entry").isEqualTo(1);
        }
        clock.advance(Duration.ofDays(1));
        assertThat(limiter.tryAcquire("k")).isEqualTo(rejected(LimitSpec.MAX_LIMIT, 0, Duration.ofDays(365), Duration.ofDays(365),
                largest));
        assertThat(limiter.tryAcquire("k", LimitSpec.MAX_LIMIT + 1).neverAllowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void retryAfterFindsTheKthOldestPermitAmongManyEntriesOfMixedCost(Backend backend) {
        LimitSpec spec = LimitSpec.of(1_000, Duration.ofMinutes(1));
        RateLimiter limiter = limiter(backend, spec);
        List<Long> log = new ArrayList<>();
        for (int i = 0; i < 400; i++) { // costs 1, 2, 3, 4, ... every 10 ms: 1000 permits in 400 entries
            long cost = 1 + i % 4;
            assertThat(limiter.tryAcquire("k", cost).allowed()).isTrue();
            for (int p = 0; p < cost; p++) {
                log.add(clock.nowMicros());
            }
            clock.advance(Duration.ofMillis(10));
        }
        long now = clock.nowMicros();
        for (long cost : new long[] { 1, 2, 3, 4, 5, 99, 500, 999, 1_000 }) {
            Decision d = limiter.tryAcquire("k", cost);
            assertThat(d.allowed()).isFalse();
            assertThat(d.retryAfter()).as("cost %d", cost).isEqualTo(micros(log.get((int) cost - 1) + 60 * SECOND - now));
        }
        if (backend == Backend.REDIS) {
            assertThat(entries(limiter)).isEqualTo(400);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void runningTotalsStartOverBeforeTheyLoseExactness(Backend backend) {
        // Two entries of 2^30 - 1 live at any time, one every half window: the running total passes
        // 2^40 (where the script rebases it) after about 1024 calls.
        LimitSpec spec = LimitSpec.of(LimitSpec.MAX_LIMIT, Duration.ofSeconds(1));
        RateLimiter limiter = limiter(backend, spec);
        RateLimiter memory = Backend.MEMORY.factory(clock, prefix).create("sl", RateLimiterConfig.of(Algorithm.SLIDING_LOG, spec));
        long cost = (1L << 30) - 1;
        for (int i = 0; i < 1_100; i++) {
            Decision d = limiter.tryAcquire("k", cost);
            long expectedRemaining = LimitSpec.MAX_LIMIT - (i == 0 ? 1 : 2) * cost;
            assertThat(d).as("call %d", i).isEqualTo(new Decision(true, LimitSpec.MAX_LIMIT, expectedRemaining, Duration.ofSeconds(1),
                    Duration.ZERO));
            assertEquals(d, memory.tryAcquire("k", cost));
            if (i > 0) {
                // One permit is left: two more wait for the entry of half a second ago to leave.
                assertThat(limiter.tryAcquire("k", 2).retryAfter()).as("call %d", i).isEqualTo(Duration.ofMillis(500));
                assertEquals(limiter.tryAcquire("k", 2), memory.tryAcquire("k", 2));
            }
            clock.advance(Duration.ofMillis(500));
        }
        if (backend == Backend.REDIS) {
            String key = SlidingWindowTests.redisKey(limiter);
            assertRunningTotals(key);
            List<Entry> entries = log(key);
            assertThat(entries.get(entries.size() - 1).total()).as("1100 * (2^30 - 1) without a rebase").isLessThan(1L << 40);
        }
    }
}
