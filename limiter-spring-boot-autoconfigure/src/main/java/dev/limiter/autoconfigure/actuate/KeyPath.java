package dev.limiter.autoconfigure.actuate;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;

import org.jspecify.annotations.Nullable;

/**
 * What the path after a limiter's name addresses in the {@code limiters} endpoint: the key, whose
 * {@code /} travel as they are ({@code /actuator/limiters/orders/tenant-1/alice} is key
 * {@code tenant-1/alice}); for a limiter with plans, the plan and then the key, or a key alone for every
 * plan. A limiter's structure decides, so no key is mistaken for a plan of a limiter without plans.
 *
 * @param plan the plan, or null for a limiter without plans or for every plan
 * @param key the key, empty when none was given
 * @param limiters the limiter, the plan's, or every plan's
 */
record KeyPath(@Nullable String plan, String key, List<RateLimiter> limiters) {

    /** The key (and plan) that {@code path} addresses under limiter {@code name}; null for an unknown limiter or plan. */
    static @Nullable KeyPath of(RateLimiterRegistry registry, String name, String... path) {
        RateLimiter limiter = registry.find(name).orElse(null);
        if (limiter != null) {
            return new KeyPath(null, String.join("/", path), List.of(limiter));
        }
        Map<String, RateLimiter> plans = registry.plans(name);
        if (plans.isEmpty()) {
            return null;
        }
        if (path.length < 2) {
            return new KeyPath(null, String.join("/", path), List.copyOf(plans.values()));
        }
        RateLimiter planned = plans.get(path[0]);
        if (planned == null) {
            return null;
        }
        return new KeyPath(path[0], String.join("/", Arrays.asList(path).subList(1, path.length)), List.of(planned));
    }

}
