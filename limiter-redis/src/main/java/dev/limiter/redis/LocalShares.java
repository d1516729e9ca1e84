package dev.limiter.redis;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntSupplier;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.LimiterClock;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import org.jspecify.annotations.Nullable;

/**
 * What {@link FailurePolicy#LOCAL} decides while Redis cannot answer: for each key, this instance's
 * share of what Redis last said of it, not a fresh limit. Every Redis answer is remembered (its
 * remaining permits and when they are whole again); a call Redis does not answer may take at most
 * remaining / instances of them until then, refilled at rate / instances for bucket algorithms, and
 * each limit divided among the instances applies too (an in-memory twin on the shares). Instances
 * are those counted alive by the heartbeat, so together they admit no more than Redis would have.
 *
 * <p>A call that timed out may have been applied in Redis; it is charged against the share all the
 * same, so the error is a permit too few, never one too many. With several limits, Redis reports the
 * one with the fewest permits left, so no limit has fewer: each starts from that many, until it is
 * whole again by itself (its window, or a bucket's refill from empty, after Redis' word).
 */
final class LocalShares {

    private final RateLimiterConfig config;

    private final InMemoryRateLimiterFactory local;

    private final String name;

    private final LimiterClock clock;

    private final IntSupplier instances;

    private final Cache<String, Entry> entries;

    /** The in-memory limiter on each limit's share, for the instance count it was made for. */
    private volatile @Nullable Shares shares;

    private record Shares(int instances, RateLimiter limiter) {
    }

    /**
     * What Redis said of a key: the reported limit (0-based), its remaining permits (no limit has fewer),
     * when it said so and when every limit is whole again, in clock micros.
     */
    private record Observation(int limit, long remaining, long observedAt, long allWholeAt) {
    }

    /** A key: Redis' last word on it, and the allowance this instance drew from that word. */
    private static final class Entry {

        volatile @Nullable Observation last;

        /** Guarded by this entry. */
        @Nullable Allowance allowance;
    }

    LocalShares(String name, RateLimiterConfig config, InMemoryRateLimiterFactory local, LimiterClock clock, IntSupplier instances,
            long maxKeys) {
        this.name = name;
        this.config = config;
        this.local = local;
        this.clock = clock;
        this.instances = instances;
        // Maintenance on the thread that writes, not handed to the common pool: on every new key that
        // hand-off woke a pool thread, a futex call and a context switch, on the hot path of decisions.
        this.entries = Caffeine.newBuilder().maximumSize(maxKeys).executor(Runnable::run).build();
    }

    /**
     * Remembers Redis' answer for {@code key}; on every Redis decision, so lock-free. Read quietly:
     * recording the read for the eviction order cost about as much again (buffered, then replayed
     * by the cache's maintenance) on every decision, for keys that are only written here. Keys are
     * kept by when they were last added and how often, and by the reads of {@link #decide}; one
     * forgotten is added again by its next answer from Redis.
     */
    void observe(String key, int reportedLimit, long remaining, long resetAfterMicros) {
        Entry entry = entries.policy().getIfPresentQuietly(key);
        if (entry == null) {
            entry = entries.get(key, (k) -> new Entry());
        }
        long now = clock.nowMicros();
        entry.last = new Observation(reportedLimit, remaining, now, now + resetAfterMicros);
    }

    /**
     * When limit {@code index} is whole again at the latest, after Redis' word: the reply's reset-after
     * is that of every limit, and no limit takes longer than its own window (or, for a bucket, its
     * refill from empty) to be whole.
     */
    private long wholeAt(Observation basis, int index) {
        LimitSpec spec = config.limits().get(index);
        long own = config.algorithm().isBucket() ? (long) Math.ceil((double) spec.burst() * spec.windowMicros() / spec.limit())
                : spec.windowMicros();
        return Math.min(basis.allWholeAt(), basis.observedAt() + own);
    }

    /** Decides a call Redis did not answer, from this instance's share. */
    Decision decide(String key, long permits) {
        Shares current = shares();
        Entry entry = entries.get(key, (k) -> new Entry());
        synchronized (entry) {
            long now = clock.nowMicros();
            Observation basis = entry.last;
            if (entry.allowance == null || entry.allowance.basis != basis || entry.allowance.instances != current.instances()) {
                // Redis said something new since, or the instances changed: start again from its word.
                current.limiter().reset(key);
                entry.allowance = new Allowance(basis, current.instances(), now);
            }
            return entry.allowance.decide(now, permits, current.limiter(), key).from(DecisionSource.LOCAL_FALLBACK);
        }
    }

    /** The quota of {@code key} by this instance's share, for reading while Redis fails. */
    Quota quota(String key) {
        Quota quota = shares().limiter().quota(key);
        return new Quota(quota.limit(), quota.remaining(), quota.resetAfter(), DecisionSource.LOCAL_FALLBACK);
    }

    /** Forgets what Redis said of {@code key} and what this instance drew from it: its state was reset. */
    void forget(String key) {
        entries.invalidate(key);
        Shares current = shares;
        if (current != null) {
            current.limiter().reset(key);
        }
    }

    private Shares shares() {
        int count = Math.max(1, instances.getAsInt());
        Shares current = shares;
        if (current == null || current.instances() != count) {
            synchronized (this) {
                current = shares;
                if (current == null || current.instances() != count) {
                    current = new Shares(count, local.create(name, shareOf(config, count)));
                    shares = current;
                }
            }
        }
        return current;
    }

    /**
     * {@code config} for one of {@code instances} instances deciding alone: every limit and
     * burst divided (rounded down). A limit that no longer binds (a shorter window allowing at least
     * as much as a longer one) is dropped, which changes no decision.
     */
    static RateLimiterConfig shareOf(RateLimiterConfig config, int instances) {
        if (instances <= 1) {
            return config;
        }
        List<LimitSpec> divided = new ArrayList<>();
        for (LimitSpec limit : config.limits()) {
            divided.add(share(config, limit, instances));
        }
        // A window stretched for a limit below the instance count may pass a longer one: sort again.
        divided.sort(Comparator.comparing(LimitSpec::window).thenComparing(LimitSpec::limit));
        List<LimitSpec> shares = new ArrayList<>();
        for (LimitSpec share : divided) {
            if (!shares.isEmpty() && shares.get(shares.size() - 1).window().equals(share.window())) {
                continue;
            }
            while (!shares.isEmpty() && shares.get(shares.size() - 1).limit() >= share.limit()) {
                shares.remove(shares.size() - 1);
            }
            shares.add(share);
        }
        return new RateLimiterConfig(config.algorithm(), shares, config.subWindows(), config.maxWait(), config.onRedisFailure(), config.onRetune(),
                config.lease());
    }

    /**
     * One instance's share of {@code limit}: rounded down, so that the instances together never admit
     * more than the limit. Fewer permits than instances: one permit per as many windows as it takes.
     */
    private static LimitSpec share(RateLimiterConfig config, LimitSpec limit, int instances) {
        long burst = Math.max(1, limit.burst() / instances);
        if (limit.limit() >= instances) {
            return new LimitSpec(limit.limit() / instances, limit.window(), burst);
        }
        long windows = -Math.floorDiv(-instances, limit.limit());
        long micros = Math.min(LimitSpec.MAX_WINDOW.toNanos() / 1_000 / Math.max(1, burst), limit.windowMicros() * windows);
        if (config.algorithm() == Algorithm.SLIDING_WINDOW) {
            micros -= micros % config.subWindows();
        }
        return new LimitSpec(1, Duration.of(micros, ChronoUnit.MICROS), burst);
    }

    /** Number of keys remembered, for tests. */
    long keyCount() {
        entries.cleanUp();
        return entries.estimatedSize();
    }

    /**
     * The permits of each limit this instance may still take until that limit is whole again: Redis'
     * remaining / instances when Redis answered (the reported limit's, which no limit has fewer of),
     * refilled at rate / instances for bucket algorithms. In doubles: a fallback's share needs no exact
     * arithmetic, and a burst times a window in microseconds can exceed a long.
     */
    private final class Allowance {

        final @Nullable Observation basis;

        final int instances;

        /** Per limit: permits of the whole limit, as if all instances drew on them like this one. */
        private final double[] permits;

        /** Per limit: when it is whole again, after which Redis' word no longer binds it. */
        private final long[] wholeAt;

        private long at;

        Allowance(@Nullable Observation basis, int instances, long now) {
            this.basis = basis;
            this.instances = instances;
            int count = config.limits().size();
            this.permits = new double[count];
            this.wholeAt = new long[count];
            if (basis != null) {
                for (int i = 0; i < count; i++) {
                    permits[i] = basis.remaining();
                    wholeAt[i] = wholeAt(basis, i);
                }
                this.at = basis.observedAt();
                refill(now);
            }
        }

        /** Whether Redis' word still binds limit {@code i}: before it is whole again. */
        private boolean binds(int i, long now) {
            return basis != null && now < wholeAt[i];
        }

        private void refill(long now) {
            if (basis != null && config.algorithm().isBucket() && now > at) {
                for (int i = 0; i < permits.length; i++) {
                    LimitSpec spec = config.limits().get(i);
                    permits[i] = Math.min(config.capacity(i), permits[i] + (double) (now - at) * spec.limit() / spec.windowMicros());
                }
            }
            at = Math.max(at, now);
        }

        /** This instance's whole permits of limit {@code i}; a hair of tolerance for what doubles lose. */
        private long permitsLeft(int i) {
            return (long) Math.floor(permits[i] / instances + 1e-9);
        }

        Decision decide(long now, long asked, RateLimiter shareLimiter, String key) {
            Observation basis = this.basis;
            if (basis != null) {
                refill(now);
                for (int i = 0; i < permits.length; i++) {
                    if (binds(i, now) && permitsLeft(i) < asked) {
                        return rejected(now, asked, i);
                    }
                }
            }
            Decision decision = shareLimiter.tryAcquire(key, asked);
            if (basis == null || !decision.allowed()) {
                return decision;
            }
            int tightest = -1;
            for (int i = 0; i < permits.length; i++) {
                if (binds(i, now)) {
                    permits[i] -= (double) asked * instances;
                    if (tightest < 0 || permitsLeft(i) < permitsLeft(tightest)) {
                        tightest = i;
                    }
                }
            }
            if (tightest >= 0 && permitsLeft(tightest) < decision.remaining()) {
                // The limit Redis' word binds tightest is now the one reported, whole again at its wholeAt.
                Duration untilWhole = Duration.of(wholeAt[tightest] - now, ChronoUnit.MICROS);
                Duration limitReset = (untilWhole.compareTo(decision.resetAfter()) < 0) ? untilWhole : decision.resetAfter();
                decision = new Decision(true, config.capacity(tightest), permitsLeft(tightest), decision.resetAfter(), limitReset, Duration.ZERO,
                        decision.waitFor(), null, decision.source());
            }
            return decision;
        }

        private Decision rejected(long now, long asked, int limit) {
            LimitSpec spec = config.limits().get(limit);
            long untilWhole = wholeAt[limit] - now;
            long retry = untilWhole;
            if (config.algorithm().isBucket()) {
                double missing = (double) asked * instances - permits[limit];
                retry = Math.min(untilWhole, (long) Math.ceil(missing * spec.windowMicros() / spec.limit()));
            }
            return new Decision(false, config.capacity(limit), permitsLeft(limit), Duration.of(untilWhole, ChronoUnit.MICROS),
                    Duration.of(Math.max(1, retry), ChronoUnit.MICROS), Duration.ZERO, spec);
        }
    }
}
