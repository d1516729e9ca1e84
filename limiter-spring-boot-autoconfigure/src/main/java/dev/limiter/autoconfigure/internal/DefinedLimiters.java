package dev.limiter.autoconfigure.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * What the definitions of the limiters say beyond each limiter's configuration, read by the
 * {@code limiters} endpoint: where each value came from, where a limiter is used, its shadow mode and
 * its plans. Read-only; every answer is as of the last startup or retune.
 */
public interface DefinedLimiters {

    /**
     * Where each value of limiter {@code name} comes from, by attribute (algorithm, limit, window,
     * burst or limits, sub-windows, max-wait, on-redis-failure, shadow): the property that sets it,
     * the annotation that does, or "default"; as found when the limiter was defined. Empty for a
     * limiter that the application registered itself.
     */
    Map<String, String> sources(String name);

    /** Where each site that uses limiter {@code name} declares it, in the order they were found. */
    List<String> sites(String name);

    /** Whether limiter {@code name} is in shadow mode: by configuration, else for any annotation that says so. */
    boolean shadow(String name);

    /** The plans of limiter {@code name} that are unlimited, in order; empty for none. */
    Set<String> unlimitedPlans(String name);

    /** The default plan of limiter {@code name}; null for none. */
    @Nullable String defaultPlan(String name);

    /** How many keys of limiter {@code name} are never limited (the keys are not shown: they may be secrets). */
    int unlimitedKeyCount(String name);
}
