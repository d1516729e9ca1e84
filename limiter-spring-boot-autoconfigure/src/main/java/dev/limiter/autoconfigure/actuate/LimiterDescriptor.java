package dev.limiter.autoconfigure.actuate;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A limiter's effective configuration; {@code sources} says, per attribute, which property or
 * annotation set it (or "default"), and {@code origins} where each property was set;
 * {@code usedBy} lists the annotated methods, then the rules of limiter.rules deciding by it. A limiter with plans has no limits of its own but
 * those of each plan ({@code plans}, null for a limiter without plans), and perhaps a default plan;
 * {@code unlimitedKeys} counts its keys that are never limited (not shown: they may be secrets);
 * {@code lease} is its local leasing of hot keys, null when it does not lease.
 */
public record LimiterDescriptor(String algorithm, List<LimitDescriptor> limits, @Nullable Integer subWindows, @Nullable String maxWait,
        @Nullable String onRedisFailure, String onRetune, boolean shadow, Map<String, String> sources, Map<String, String> origins,
        List<String> usedBy, @Nullable Map<String, PlanDescriptor> plans, @Nullable String defaultPlan, int unlimitedKeys,
        @Nullable LeaseDescriptor lease) implements NamedLimitDescriptor {
}
