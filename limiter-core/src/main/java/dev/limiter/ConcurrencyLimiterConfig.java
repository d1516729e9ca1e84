package dev.limiter;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link ConcurrencyLimiter} decides by: at most {@code limit} calls in flight per key. Immutable
 * and validated.
 *
 * @param limit most calls in flight per key at once, across every instance sharing the backend; between 1
 *     and {@link LimitSpec#MAX_LIMIT}
 * @param lease how long a slot stays taken after its holder last renewed it: a running call's instance renews
 *     it every third of the lease, so only the slot of a holder that died (or lost Redis) comes free after at
 *     most this long. Whole milliseconds, between {@link #MIN_LEASE} and {@link #MAX_LEASE}
 * @param maxWait how long a caller may wait for a slot instead of being rejected; {@link Duration#ZERO} never
 *     waits; at most {@link RateLimiterConfig#MAX_WAIT}
 * @param onRedisFailure what a Redis limiter decides while Redis fails; null leaves it to the backend's default
 */
public record ConcurrencyLimiterConfig(long limit, Duration lease, Duration maxWait, @Nullable FailurePolicy onRedisFailure) {

    /** Lease unless configured. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    /** Shortest lease: renewals every third of it must reach Redis in time. */
    public static final Duration MIN_LEASE = Duration.ofMillis(100);

    /** Longest lease: a dead holder's slot must come back within the day. */
    public static final Duration MAX_LEASE = Duration.ofDays(1);

    public ConcurrencyLimiterConfig {
        if (limit < 1 || limit > LimitSpec.MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + LimitSpec.MAX_LIMIT + " calls in flight but was " + limit);
        }
        if (lease == null || lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0 || lease.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("lease must be whole milliseconds between " + MIN_LEASE + " and " + MAX_LEASE
                    + " but was " + lease + "; a slot whose holder died comes back after it, so choose a little more than the "
                    + "time a renewal may take to reach Redis times three");
        }
        if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(RateLimiterConfig.MAX_WAIT) > 0) {
            throw new IllegalArgumentException("max-wait must be between 0 and " + RateLimiterConfig.MAX_WAIT + " but was " + maxWait);
        }
    }

    /** At most {@code limit} calls in flight per key, the default lease, no waiting, the backend's failure policy. */
    public static ConcurrencyLimiterConfig of(long limit) {
        return new ConcurrencyLimiterConfig(limit, DEFAULT_LEASE, Duration.ZERO, null);
    }

    /** The same configuration with another lease. */
    public ConcurrencyLimiterConfig withLease(Duration lease) {
        return new ConcurrencyLimiterConfig(limit, lease, maxWait, onRedisFailure);
    }

    /** The same configuration letting callers wait up to {@code maxWait} for a slot. */
    public ConcurrencyLimiterConfig withMaxWait(Duration maxWait) {
        return new ConcurrencyLimiterConfig(limit, lease, maxWait, onRedisFailure);
    }

    /** The same configuration with its own policy for Redis failures (null: the backend's default). */
    public ConcurrencyLimiterConfig withOnRedisFailure(@Nullable FailurePolicy onRedisFailure) {
        return new ConcurrencyLimiterConfig(limit, lease, maxWait, onRedisFailure);
    }

    /** The lease in milliseconds. */
    public long leaseMillis() {
        return lease.toMillis();
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("concurrency ").append(limit).append(" lease ").append(lease);
        if (!maxWait.isZero()) {
            text.append(" max-wait ").append(maxWait);
        }
        if (onRedisFailure != null) {
            text.append(" on-redis-failure ").append(onRedisFailure.name().toLowerCase(java.util.Locale.ROOT));
        }
        return text.toString();
    }
}
