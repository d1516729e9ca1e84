package dev.limiter;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The limiters of an application by name, each created once by one {@link RateLimiterFactory}.
 * A name has either one limiter or plans: one limiter per plan ({@link #register(String, String,
 * RateLimiterConfig)}), each with its own limits and state. Thread-safe.
 */
public final class RateLimiterRegistry {

    private final RateLimiterFactory factory;

    private final Map<String, RateLimiter> limiters = new ConcurrentHashMap<>();

    /** The limiters of plans, by limiter name, then plan. */
    private final Map<String, Map<String, RateLimiter>> plans = new ConcurrentHashMap<>();

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
     * @throws IllegalStateException if the name is registered with another configuration, or has plans
     */
    public RateLimiter register(String name, RateLimiterConfig config) {
        if (name == null || config == null) {
            throw new IllegalArgumentException("name and config are required, but got " + name + ", " + config);
        }
        RateLimiter limiter = limiters.get(name);
        if (limiter == null) {
            synchronized (this) {
                if (plans.containsKey(name)) {
                    throw new IllegalStateException("Limiter '" + name + "' is already registered with plans " + plans(name).keySet()
                            + " and cannot also have a limit of its own, " + config);
                }
                limiter = limiters.computeIfAbsent(name, n -> factory.create(n, config));
            }
        }
        if (!limiter.config().equals(config)) {
            throw new IllegalStateException("Limiter '" + name + "' is already registered as " + limiter.config()
                    + " and cannot also be " + config);
        }
        return limiter;
    }

    /**
     * Returns the limiter of plan {@code plan} of limiter {@code name}, creating it on first use (see
     * {@link RateLimiterFactory#create(String, String, RateLimiterConfig)}: each plan keeps its own
     * state). Registering the same plan again with an equal configuration returns the same limiter.
     *
     * @throws IllegalStateException if the plan is registered with another configuration, or the name
     *     has a limiter without plans
     * @throws IllegalArgumentException for a bad name or plan
     */
    public RateLimiter register(String name, String plan, RateLimiterConfig config) {
        if (name == null || plan == null || config == null) {
            throw new IllegalArgumentException("name, plan and config are required, but got " + name + ", " + plan + ", " + config);
        }
        Map<String, RateLimiter> byPlan = plans.get(name);
        RateLimiter limiter = (byPlan != null) ? byPlan.get(plan) : null;
        if (limiter == null) {
            synchronized (this) {
                if (limiters.containsKey(name)) {
                    throw new IllegalStateException("Limiter '" + name + "' is already registered without plans, as "
                            + limiters.get(name).config() + ", and cannot also have plan '" + plan + "'");
                }
                byPlan = plans.get(name);
                limiter = (byPlan != null) ? byPlan.get(plan) : null;
                if (limiter == null) {
                    limiter = factory.create(name, plan, config);
                    // Published only once created: a name whose first plan fails to create has no plans.
                    plans.computeIfAbsent(name, (n) -> new ConcurrentHashMap<>()).put(plan, limiter);
                }
            }
        }
        if (!limiter.config().equals(config)) {
            throw new IllegalStateException("Plan '" + plan + "' of limiter '" + name + "' is already registered as " + limiter.config()
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

    /**
     * Makes the limiter of plan {@code plan} of limiter {@code name} decide by {@code config} from now on;
     * see {@link #retune(String, RateLimiterConfig)}.
     *
     * @throws IllegalArgumentException when that limiter has no such plan registered
     */
    public Retuning retune(String name, String plan, RateLimiterConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("config is required");
        }
        return find(name, plan).orElseThrow(() -> new IllegalArgumentException("No plan '" + plan + "' of limiter '" + name
                + "'; its plans: " + plans(name).keySet())).retune(config);
    }

    /** The limiter of plan {@code plan} of limiter {@code name}, if registered. */
    public Optional<RateLimiter> find(String name, String plan) {
        Map<String, RateLimiter> byPlan = (name != null) ? plans.get(name) : null;
        return Optional.ofNullable((byPlan != null && plan != null) ? byPlan.get(plan) : null);
    }

    /** The limiters of the plans of limiter {@code name}, by plan in order of their names; empty when it has none. */
    public SortedMap<String, RateLimiter> plans(String name) {
        Map<String, RateLimiter> byPlan = (name != null) ? plans.get(name) : null;
        return Collections.unmodifiableSortedMap((byPlan != null) ? new TreeMap<>(byPlan) : new TreeMap<>());
    }

    /** The names of every registered limiter, with plans or without, in order. */
    public Set<String> names() {
        Set<String> names = new TreeSet<>(limiters.keySet());
        names.addAll(plans.keySet());
        return Collections.unmodifiableSet(names);
    }

    /** The limiter of that name, if registered (not one with plans: see {@link #find(String, String)}). */
    public Optional<RateLimiter> find(String name) {
        return Optional.ofNullable((name != null) ? limiters.get(name) : null);
    }

    /**
     * The limiter of that name.
     *
     * @throws IllegalArgumentException naming the registered limiters when there is none, or its plans
     *     when it has plans
     */
    public RateLimiter get(String name) {
        RateLimiter limiter = (name != null) ? limiters.get(name) : null;
        if (limiter == null && name != null && plans.containsKey(name)) {
            throw new IllegalArgumentException("Limiter '" + name + "' has plans " + plans(name).keySet() + ", each with its own limiter: "
                    + "find one with find(name, plan)");
        }
        if (limiter == null) {
            throw new IllegalArgumentException("No limiter named '" + name + "'; registered: " + new TreeMap<>(limiters).keySet());
        }
        return limiter;
    }

    /** Every registered limiter without plans. */
    public Collection<RateLimiter> limiters() {
        return Collections.unmodifiableCollection(limiters.values());
    }
}
