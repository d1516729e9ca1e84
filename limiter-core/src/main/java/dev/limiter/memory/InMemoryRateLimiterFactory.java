package dev.limiter.memory;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.DecisionListener;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.internal.LimiterArguments;

import org.jspecify.annotations.Nullable;


/** Creates limiters that keep their state in this process, bounded to a number of keys per limiter. */
public final class InMemoryRateLimiterFactory implements RateLimiterFactory {

    /** Keys each limiter holds by default before forgetting those that become idle soonest. */
    public static final long DEFAULT_MAX_KEYS = 100_000;

    private final LimiterClock clock;

    private final long maxKeys;

    private final DecisionListener listener;

    /** System clock, {@value #DEFAULT_MAX_KEYS} keys per limiter, no listener. */
    public InMemoryRateLimiterFactory() {
        this(builder());
    }

    private InMemoryRateLimiterFactory(Builder builder) {
        this.clock = builder.clock;
        this.maxKeys = builder.maxKeys;
        this.listener = builder.listener;
    }

    /** A builder of in-memory limiters. */
    public static Builder builder() {
        return new Builder();
    }

    /** Configures an {@link InMemoryRateLimiterFactory}; each setter checks its value at once. */
    public static final class Builder {

        private LimiterClock clock = LimiterClock.system();

        private long maxKeys = DEFAULT_MAX_KEYS;

        private DecisionListener listener = DecisionListener.NONE;

        private Builder() {
        }

        /** Time source; tests pass a virtual clock. Default: the system clock. */
        public Builder clock(LimiterClock clock) {
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            this.clock = clock;
            return this;
        }

        /**
         * Keys each limiter holds at most; beyond that those that become idle soonest are forgotten first, so
         * a flood of new keys frees keys at their limit last. Default {@value InMemoryRateLimiterFactory#DEFAULT_MAX_KEYS}.
         */
        public Builder maxKeys(long maxKeys) {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("maxKeys must be at least 1 but was " + maxKeys);
            }
            this.maxKeys = maxKeys;
            return this;
        }

        /** Tells {@code listener} of every decision the limiters make; null tells no one. */
        public Builder listener(@Nullable DecisionListener listener) {
            this.listener = (listener != null) ? listener : DecisionListener.NONE;
            return this;
        }

        public InMemoryRateLimiterFactory build() {
            return new InMemoryRateLimiterFactory(this);
        }
    }

    /** Keys each limiter holds at most. */
    public long maxKeys() {
        return maxKeys;
    }

    @Override
    public ConcurrencyLimiter createConcurrencyLimiter(String name, ConcurrencyLimiterConfig config) {
        return new InMemoryConcurrencyLimiter(name, config, clock, listener);
    }

    @Override
    public RateLimiter create(String name, RateLimiterConfig config) {
        return new InMemoryRateLimiter(name, config, clock, maxKeys, listener);
    }

    /** Every limiter keeps its state to itself, so a plan's is apart from every other plan's by construction. */
    @Override
    public RateLimiter create(String name, String plan, RateLimiterConfig config) {
        LimiterArguments.checkPlan(plan);
        return create(name, config);
    }
}
