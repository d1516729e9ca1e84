package dev.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;

import org.junit.jupiter.api.Test;

/**
 * Token bucket, leaky bucket and GCRA are three views of one rule (docs/algorithms.md): tokens are the
 * burst less the level, and the level is (tau - now) / T. Their refunds are one rule too: tokens up by
 * c to at most B, the level down by c to at least 0, tau back by c·T to at least now. So their twins
 * must answer alike for any history of decisions and refunds. Without Redis, so it runs in the fast
 * build.
 */
class BucketRefundsTests {

    static final List<Algorithm> BUCKETS = List.of(Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET, Algorithm.GCRA);

    @Test
    void theThreeBucketsGiveBackAlike() {
        for (long seed = 1; seed <= 20; seed++) {
            replay(seed, false);
            replay(seed, true);
        }
    }

    private static void replay(long seed, boolean waiting) {
        AtomicLong now = new AtomicLong(1_700_000_000_000_000L + seed);
        InMemoryRateLimiterFactory factory = InMemoryRateLimiterFactory.builder().clock(now::get).build();
        List<RateLimiter> limiters = BUCKETS.stream().map((algorithm) -> {
            RateLimiterConfig.Builder builder = RateLimiterConfig.builder(algorithm)
                .limit(LimitSpec.of(7, Duration.ofSeconds(10)).withBurst(9))
                .limit(LimitSpec.of(20, Duration.ofMinutes(1)));
            if (waiting) {
                builder.maxWait(Duration.ofSeconds(2));
            }
            return factory.create("buckets-" + algorithm.configName(), builder.build());
        }).toList();
        Random random = new Random(seed); // fixed seed: a failure replays exactly
        int refunded = 0;
        for (int step = 0; step < 400; step++) {
            now.addAndGet(random.nextInt(1_500_001));
            long permits = 1 + random.nextInt(4);
            String where = "seed " + seed + (waiting ? " waiting" : "") + ", step " + step + ", permits " + permits;
            if (random.nextInt(3) == 0) {
                Quota first = limiters.get(0).refund("k", permits);
                for (RateLimiter limiter : limiters.subList(1, 3)) {
                    assertEquals(first, limiter.refund("k", permits), where + ", refund by " + limiter.algorithm());
                }
                refunded += (first.resetAfter().isZero()) ? 0 : 1;
            }
            else {
                Decision first = limiters.get(0).tryAcquire("k", permits);
                for (RateLimiter limiter : limiters.subList(1, 3)) {
                    Decision other = limiter.tryAcquire("k", permits);
                    assertEquals(first.allowed(), other.allowed(), where + ", decision by " + limiter.algorithm());
                    assertEquals(first.remaining(), other.remaining(), where + ", decision by " + limiter.algorithm());
                    assertEquals(first.waitFor(), other.waitFor(), where + ", decision by " + limiter.algorithm());
                }
            }
        }
        assertThat(refunded).as("refunds leaving state, seed %d", seed).isGreaterThan(20);
    }
}
