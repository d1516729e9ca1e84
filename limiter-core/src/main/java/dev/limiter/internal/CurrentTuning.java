package dev.limiter.internal;

import java.util.function.Consumer;
import java.util.function.Function;

import dev.limiter.RateLimiterConfig;
import dev.limiter.Retuning;

/**
 * What a limiter decides by now (its tuning: a configuration and what the backend makes of it), and
 * the one way to retune it, which every backend shares: a call reads the tuning once, so it is decided
 * by one configuration from start to end; a retune replaces it whole, for the limiter and every view
 * of it alike.
 *
 * @param <T> the backend's tuning
 */
public final class CurrentTuning<T> {

    private final String limiter;

    private final Function<? super T, RateLimiterConfig> configOf;

    /** Read without a lock on every call; written under this object's lock by {@link #retune}. */
    private volatile T current;

    /**
     * @param limiter the limiter's name, for the {@link Retuning}s
     * @param initial the tuning it decides by first
     * @param configOf the configuration of a tuning
     */
    public CurrentTuning(String limiter, T initial, Function<? super T, RateLimiterConfig> configOf) {
        this.limiter = limiter;
        this.current = initial;
        this.configOf = configOf;
    }

    /** The tuning in force. */
    public T get() {
        return current;
    }

    /** The configuration in force. */
    public RateLimiterConfig config() {
        return configOf.apply(current);
    }

    /**
     * Decides by {@code config} from the next call on, unless it is the configuration in force. One
     * retune at a time: each starts from the tuning the one before left.
     *
     * @param retuned makes the tuning of {@code config} from the previous tuning and the retuning
     *     (which says whether the keys keep their state); the tuning is then in force
     * @param afterwards what the backend forgets once the new tuning is in force, such as what it
     *     remembers of the old configuration's answers; run before the next retune
     */
    public synchronized Retuning retune(RateLimiterConfig config, RetuneStep<T> retuned, Consumer<Retuning> afterwards) {
        if (config == null) {
            throw new IllegalArgumentException("config must not be null");
        }
        T previous = current;
        Retuning retuning = new Retuning(limiter, configOf.apply(previous), config);
        if (retuning.changed()) {
            current = retuned.tuning(previous, retuning);
            afterwards.accept(retuning);
        }
        return retuning;
    }

    /** Makes the tuning a retune puts in force. */
    @FunctionalInterface
    public interface RetuneStep<T> {

        /**
         * @param previous the tuning in force until now
         * @param retuning the previous configuration, the new one, and whether the keys keep their state
         */
        T tuning(T previous, Retuning retuning);
    }
}
