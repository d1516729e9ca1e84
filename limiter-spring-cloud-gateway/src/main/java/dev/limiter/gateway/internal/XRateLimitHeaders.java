package dev.limiter.gateway.internal;

import java.math.BigInteger;
import java.time.Duration;
import java.util.function.BiConsumer;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;

/**
 * The {@code X-RateLimit-*} header fields that Spring Cloud Gateway's {@code RedisRateLimiter} sends and
 * its clients read, worked out from a Limiter decision: the remaining permits, the capacity of the limit
 * the decision reports (a bucket's burst, a window's limit), that limit's permits per second (rounded
 * down) and the permits the request asked for. Sent beside the IETF RateLimit fields while
 * {@code limiter.gateway.redis-rate-limiter-headers} is true.
 */
public final class XRateLimitHeaders {

    /** Permits left after the request. */
    public static final String REMAINING = "X-RateLimit-Remaining";

    /** Permits the reported limit grants per second, rounded down. */
    public static final String REPLENISH_RATE = "X-RateLimit-Replenish-Rate";

    /** Most permits the reported limit grants at once. */
    public static final String BURST_CAPACITY = "X-RateLimit-Burst-Capacity";

    /** Permits the request asked for. */
    public static final String REQUESTED_TOKENS = "X-RateLimit-Requested-Tokens";

    private static final long MICROS_PER_SECOND = 1_000_000L;

    private XRateLimitHeaders() {
    }

    /**
     * Gives {@code header} each field after {@code decision}; nothing for a decision no limit made (an
     * unlimited key or plan), which has no numbers to report.
     */
    public static void put(RateLimiter limiter, long cost, Decision decision, BiConsumer<String, String> header) {
        if (decision.limit() <= 0) {
            return;
        }
        LimitSpec reported = reported(limiter.config(), decision.limit());
        header.accept(REMAINING, Long.toString(decision.remaining()));
        header.accept(REPLENISH_RATE, Long.toString(perSecond(reported)));
        header.accept(BURST_CAPACITY, Long.toString(decision.limit()));
        header.accept(REQUESTED_TOKENS, Long.toString(cost));
    }

    /** The limit whose capacity the decision reports; the first, should none match (a retune in between). */
    private static LimitSpec reported(RateLimiterConfig config, long capacity) {
        boolean bucket = config.algorithm().isBucket();
        for (LimitSpec limit : config.limits()) {
            if ((bucket ? limit.burst() : limit.limit()) == capacity) {
                return limit;
            }
        }
        return config.limits().get(0);
    }

    private static long perSecond(LimitSpec limit) {
        Duration window = limit.window();
        long micros = window.getSeconds() * MICROS_PER_SECOND + window.getNano() / 1_000L;
        return BigInteger.valueOf(limit.limit()).multiply(BigInteger.valueOf(MICROS_PER_SECOND)).divide(BigInteger.valueOf(micros))
            .longValue();
    }
}
