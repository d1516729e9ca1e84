package dev.limiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Everything a limiter decides by: its algorithm, one or more limits checked together (such as 10
 * per second and 1000 per hour), and the algorithm's options. Immutable and validated.
 *
 * @param algorithm the deciding algorithm
 * @param limits the limits, kept sorted by window; windows distinct, a shorter window with a
 *     smaller limit; at most {@link #MAX_LIMITS}
 * @param subWindows sub-windows per window for {@link Algorithm#SLIDING_WINDOW}: each window must be
 *     a whole number of microseconds times it
 * @param maxWait how long a caller may wait for its permits instead of being rejected (bucket
 *     algorithms only); {@link Duration#ZERO} never waits
 * @param onRedisFailure what a Redis limiter decides while Redis fails; null leaves it to the
 *     backend's default
 * @param onRetune what becomes of each key's state when the limiter is retuned to another
 *     configuration; it also decides the keys' names in Redis from the start
 * @param lease how a Redis limiter's instance may reserve permits of a hot key and hand them out
 *     locally (bucket algorithms only); null, the default, never leases
 */
public record RateLimiterConfig(Algorithm algorithm, List<LimitSpec> limits, int subWindows, Duration maxWait,
        @Nullable FailurePolicy onRedisFailure, RetunePolicy onRetune, @Nullable Lease lease) {

    /** Sub-windows of a sliding window unless configured. */
    public static final int DEFAULT_SUB_WINDOWS = 10;

    /** Most limits one limiter may check together. */
    public static final int MAX_LIMITS = 8;

    /** Longest max-wait: a caller should never wait longer than this for a permit. */
    public static final Duration MAX_WAIT = Duration.ofDays(1);

    public RateLimiterConfig {
        if (algorithm == null) {
            throw new IllegalArgumentException("algorithm must not be null");
        }
        if (limits == null || limits.isEmpty() || limits.size() > MAX_LIMITS || limits.stream().anyMatch(java.util.Objects::isNull)) {
            throw new IllegalArgumentException("between 1 and " + MAX_LIMITS + " limits are required but got " + limits);
        }
        List<LimitSpec> sorted = new ArrayList<>(limits);
        sorted.sort(Comparator.comparing(LimitSpec::window));
        for (int i = 1; i < sorted.size(); i++) {
            LimitSpec shorter = sorted.get(i - 1);
            LimitSpec longer = sorted.get(i);
            if (shorter.window().equals(longer.window())) {
                throw new IllegalArgumentException("limits " + shorter + " and " + longer + " have the same window; keep one of them");
            }
            if (shorter.limit() >= longer.limit()) {
                throw new IllegalArgumentException("limit " + shorter + " allows at least as much as " + longer
                        + " over a shorter window, so one of them never applies; a shorter window needs a smaller limit");
            }
        }
        limits = List.copyOf(sorted);
        if (subWindows < 1) {
            throw new IllegalArgumentException("sub-windows must be at least 1 but was " + subWindows);
        }
        if (algorithm == Algorithm.SLIDING_WINDOW) {
            for (LimitSpec limit : limits) {
                if (limit.windowMicros() % subWindows != 0) {
                    throw new IllegalArgumentException("window " + limit.window() + " does not divide into " + subWindows
                            + " sub-windows of whole microseconds; choose a number of sub-windows that divides it");
                }
            }
        }
        if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(MAX_WAIT) > 0 || maxWait.getNano() % 1_000 != 0) {
            throw new IllegalArgumentException("max-wait must be whole microseconds between 0 and " + MAX_WAIT + " but was " + maxWait);
        }
        if (!maxWait.isZero() && !algorithm.isBucket()) {
            throw new IllegalArgumentException("max-wait applies to token-bucket, leaky-bucket and gcra, not to " + algorithm
                    + "; remove it or choose one of those");
        }
        if (algorithm != Algorithm.FIXED_WINDOW && limits.stream().anyMatch((l) -> l.calendar() != null)) {
            throw new IllegalArgumentException("calendar windows apply to fixed-window, not to " + algorithm
                    + "; choose fixed-window or a window of fixed length");
        }
        if (onRetune == null) {
            throw new IllegalArgumentException("on-retune must not be null");
        }
        if (lease != null && !algorithm.isBucket()) {
            throw new IllegalArgumentException("lease applies to token-bucket, leaky-bucket and gcra, not to " + algorithm
                    + "; remove it or choose one of those");
        }
        for (LimitSpec limit : limits) {
            // Waiting callers borrow future permits; the scripts' exact arithmetic needs the debt bounded.
            double lent = maxWait.toNanos() / 1e3 * limit.limit() / limit.windowMicros() + limit.burst();
            if (lent >= MAX_LENT) {
                throw new IllegalArgumentException("max-wait " + maxWait + " at " + limit + " would let callers borrow more than 2^34 "
                        + "permits; shorten max-wait");
            }
        }
    }

    /** Most permits a bucket may hold plus lend to waiting callers: keeps the scripts' numbers exact. */
    private static final double MAX_LENT = 0x1p34;

    /** A configuration that never leases. */
    public RateLimiterConfig(Algorithm algorithm, List<LimitSpec> limits, int subWindows, Duration maxWait,
            @Nullable FailurePolicy onRedisFailure, RetunePolicy onRetune) {
        this(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, null);
    }

    /** Longest lease time-to-live: leased permits are meant to be used within moments. */
    public static final Duration MAX_LEASE_TTL = Duration.ofHours(1);

    /**
     * Local leasing of a hot key's permits (Redis limiters): a call that Redis admits on a key this
     * instance decided within the last {@code ttl} also takes up to {@code permits} more permits in the
     * same script, which this instance then hands out without asking Redis until they run out or
     * {@code ttl} has passed since they were taken. Leased permits are counted in Redis when taken, so
     * the instances together never admit more than the limit; unused ones simply expire, so a key may
     * get fewer. Over any span of time w a key is admitted at most what the algorithm admits over
     * w + ttl (docs/algorithms.md).
     *
     * @param permits most permits one call leases beyond its own, at least 1
     * @param ttl how long leased permits may be handed out after they were taken: positive, whole
     *     microseconds, at most {@link #MAX_LEASE_TTL}
     */
    public record Lease(long permits, Duration ttl) {

        public Lease {
            if (permits < 1 || permits > LimitSpec.MAX_LIMIT) {
                throw new IllegalArgumentException("lease permits must be between 1 and " + LimitSpec.MAX_LIMIT + " but was " + permits);
            }
            if (ttl == null || ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_LEASE_TTL) > 0 || ttl.getNano() % 1_000 != 0) {
                throw new IllegalArgumentException("lease ttl must be whole microseconds above 0 and at most " + MAX_LEASE_TTL
                        + " but was " + ttl);
            }
        }

        /** The time-to-live in microseconds. */
        public long ttlMicros() {
            return ttl.getSeconds() * 1_000_000L + ttl.getNano() / 1_000L;
        }

        @Override
        public String toString() {
            return permits + " per " + ttl;
        }
    }

    /** A configuration whose keys start fresh when it is retuned ({@link RetunePolicy#RESET}). */
    public RateLimiterConfig(Algorithm algorithm, List<LimitSpec> limits, int subWindows, Duration maxWait,
            @Nullable FailurePolicy onRedisFailure) {
        this(algorithm, limits, subWindows, maxWait, onRedisFailure, RetunePolicy.RESET);
    }

    /** A configuration that leaves the failure policy to the backend's default. */
    public RateLimiterConfig(Algorithm algorithm, List<LimitSpec> limits, int subWindows, Duration maxWait) {
        this(algorithm, limits, subWindows, maxWait, null);
    }

    /** The algorithm with the given limits, default sub-windows and no waiting. */
    public static RateLimiterConfig of(Algorithm algorithm, LimitSpec... limits) {
        return new RateLimiterConfig(algorithm, List.of(limits), DEFAULT_SUB_WINDOWS, Duration.ZERO, null);
    }

    /**
     * A builder of a configuration for {@code algorithm}, which {@link Builder#build()} validates:
     * <pre>{@code
     * RateLimiterConfig config = RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET)
     *     .limit(10, Duration.ofSeconds(1))
     *     .limit(LimitSpec.of(1_000, Duration.ofHours(1)))
     *     .maxWait(Duration.ofMillis(200))
     *     .build();
     * }</pre>
     */
    public static Builder builder(Algorithm algorithm) {
        return new Builder(algorithm);
    }

    /** Collects a configuration's values; {@link #build()} checks them together. Not thread-safe. */
    public static final class Builder {

        private final Algorithm algorithm;

        private final List<LimitSpec> limits = new ArrayList<>();

        private int subWindows = DEFAULT_SUB_WINDOWS;

        private Duration maxWait = Duration.ZERO;

        private @Nullable FailurePolicy onRedisFailure;

        private RetunePolicy onRetune = RetunePolicy.RESET;

        private @Nullable Lease lease;

        private Builder(Algorithm algorithm) {
            this.algorithm = algorithm;
        }

        /** Adds a limit; several limits are checked together, in any order. */
        public Builder limit(LimitSpec limit) {
            limits.add(limit);
            return this;
        }

        /** Adds a limit of {@code limit} permits per {@code window}, its burst equal to the limit. */
        public Builder limit(long limit, Duration window) {
            return limit(LimitSpec.of(limit, window));
        }

        /** Sub-windows per window of a sliding window ({@value #DEFAULT_SUB_WINDOWS} unless set). */
        public Builder subWindows(int subWindows) {
            this.subWindows = subWindows;
            return this;
        }

        /** How long a caller of a bucket algorithm may wait for its permits instead of being rejected. */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /** What a Redis limiter decides while Redis fails; null (the default) leaves it to the backend. */
        public Builder onRedisFailure(@Nullable FailurePolicy onRedisFailure) {
            this.onRedisFailure = onRedisFailure;
            return this;
        }

        /** What becomes of each key's state when the limiter is retuned; {@link RetunePolicy#RESET} unless set. */
        public Builder onRetune(RetunePolicy onRetune) {
            this.onRetune = onRetune;
            return this;
        }

        /** Lets a Redis limiter's instances lease up to {@code permits} of a hot key's permits for {@code ttl} ({@link Lease}). */
        public Builder lease(long permits, Duration ttl) {
            this.lease = new Lease(permits, ttl);
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException naming the value that is wrong and how to correct it
         */
        public RateLimiterConfig build() {
            return new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease);
        }
    }

    /** The same configuration with another number of sub-windows (sliding window). */
    public RateLimiterConfig withSubWindows(int subWindows) {
        return new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease);
    }

    /** The same configuration letting callers wait up to {@code maxWait} for their permits. */
    public RateLimiterConfig withMaxWait(Duration maxWait) {
        return new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease);
    }

    /** The same configuration with its own policy for Redis failures (null: the backend's default). */
    public RateLimiterConfig withOnRedisFailure(@Nullable FailurePolicy onRedisFailure) {
        return new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease);
    }

    /** The same configuration with another policy for keys' state on a retune. */
    public RateLimiterConfig withOnRetune(RetunePolicy onRetune) {
        return new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease);
    }

    /** The same configuration leasing as {@code lease} says (null: never). */
    public RateLimiterConfig withLease(@Nullable Lease lease) {
        return new RateLimiterConfig(algorithm, limits, subWindows, maxWait, onRedisFailure, onRetune, lease);
    }

    /**
     * Whether a limiter retuned from {@code previous} to this configuration keeps each key's state, as
     * every backend decides (and every instance alike, without asking the others). With
     * {@link RetunePolicy#KEEP} on both sides: when the state has the same shape, that is the same
     * algorithm, windows and (sliding window) sub-windows, whatever the limits, bursts, max-wait,
     * lease or failure policy. With {@link RetunePolicy#RESET} on both sides: only when nothing the
     * state in Redis depends on changed (the failure policy and the lease may: leased permits are
     * taken by the same arithmetic as any other). Never when {@code onRetune} itself changes.
     */
    public boolean keepsStateOf(RateLimiterConfig previous) {
        if (onRetune != previous.onRetune || algorithm != previous.algorithm
                || (algorithm == Algorithm.SLIDING_WINDOW && subWindows != previous.subWindows)) {
            return false;
        }
        if (onRetune == RetunePolicy.KEEP) {
            return windows().equals(previous.windows());
        }
        return limits.equals(previous.limits) && maxWait.equals(previous.maxWait);
    }

    /** The windows of the limits, in order (a calendar window as its calendar): part of the shape of a key's state. */
    List<Object> windows() {
        return limits.stream().map((l) -> (l.calendar() != null) ? (Object) l.calendar() : l.window()).toList();
    }

    /** Max-wait in whole microseconds, as the scripts take it. */
    public long maxWaitMicros() {
        return maxWait.getSeconds() * 1_000_000L + maxWait.getNano() / 1_000L;
    }

    /** The most permits limit {@code index} can ever grant one request. */
    public long capacity(int index) {
        return algorithm.capacity(limits.get(index));
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(algorithm.configName()).append(' ').append(limits);
        if (algorithm == Algorithm.SLIDING_WINDOW) {
            text.append(" sub-windows ").append(subWindows);
        }
        if (!maxWait.isZero()) {
            text.append(" max-wait ").append(maxWait);
        }
        if (onRedisFailure != null) {
            text.append(" on-redis-failure ").append(onRedisFailure.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (onRetune != RetunePolicy.RESET) {
            text.append(" on-retune ").append(onRetune.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (lease != null) {
            text.append(" lease ").append(lease);
        }
        return text.toString();
    }

    /** {@code micros} microseconds; one object, where {@code Duration.of(micros, MICROS)} builds three (decisions need up to four). */
    static Duration micros(long micros) {
        return Duration.ofSeconds(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
}
