package dev.limiter;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The limiters of an application by name, each created once by one {@link RateLimiterFactory}.
 * Thread-safe.
 */
public final class RateLimiterRegistry {

    private final RateLimiterFactory factory;

    private final Map<String, RateLimiter> limiters = new ConcurrentHashMap<>();

    public RateLimiterRegistry(RateLimiterFactory factory) {
        if (factory == null) {
            throw new IllegalArgumentException("factory must not be null");
        }
        this.factory = factory;
    }

    /**
     * Returns the limiter of that name, creating it on first use. Registering the same name again
     * with an equal configuration returns the same limiter.
     *
     * @throws IllegalStateException if the name is registered with another configuration
     */
    public RateLimiter register(String name, RateLimiterConfig config) {
        if (name == null || config == null) {
            throw new IllegalArgumentException("name and config are required, but got " + name + ", " + config);
        }
        RateLimiter limiter = limiters.computeIfAbsent(name, n -> factory.create(n, config));
        if (!limiter.config().equals(config)) {
            throw new IllegalStateException("Limiter '" + name + "' is already registered as " + limiter.config()
                    + " and cannot also be " + config);
        }
        return limiter;
    }

    /** Registers a limiter with a single limit; see {@link #register(String, RateLimiterConfig)}. */
    public RateLimiter register(String name, Algorithm algorithm, LimitSpec spec) {
        if (algorithm == null || spec == null) {
            throw new IllegalArgumentException("algorithm and spec are required, but got " + algorithm + ", " + spec);
        }
        return register(name, RateLimiterConfig.of(algorithm, spec));
    }

    /**
     * Makes the limiter of that name decide by {@code config} from now on, for everyone holding it; see
     * {@link RateLimiter#retune(RateLimiterConfig)}. Registering the name again then expects the new
     * configuration.
     *
     * @throws IllegalArgumentException naming the registered limiters when there is none of that name
     */
    public Retuning retune(String name, RateLimiterConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config is required");
        }
        return get(name).retune(config);
    }

    /** The limiter of that name, if registered. */
    public Optional<RateLimiter> find(String name) {
        return Optional.ofNullable((name != null) ? limiters.get(name) : null);
    }

    /**
     * The limiter of that name.
     *
     * @throws IllegalArgumentException naming the registered limiters when there is none
     */
    public RateLimiter get(String name) {
        RateLimiter limiter = (name != null) ? limiters.get(name) : null;
        if (limiter == null) {
            throw new IllegalArgumentException("No limiter named '" + name + "'; registered: " + new TreeMap<>(limiters).keySet());
        }
        return limiter;
    }

    /** Every registered limiter. */
    public Collection<RateLimiter> limiters() {
        return Collections.unmodifiableCollection(limiters.values());
    }
}
