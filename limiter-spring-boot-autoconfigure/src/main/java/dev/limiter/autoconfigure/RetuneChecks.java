package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterDefinition.property;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

import dev.limiter.spring.internal.limits.RateLimitedValues;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;

/**
 * What a retune checks before it applies anything, properties bound anew against those in force: settings
 * fixed at startup (backend, Redis, rules, each limiter's plans and shadow mode) unchanged, and every
 * limiter defined anew, with the annotations that use it, as startup would define it.
 */
final class RetuneChecks {

    private RetuneChecks() {
    }

    /**
     * The definition of every limiter by {@code next}: the limiters defined so far, and those {@code next}
     * configures, each with every annotation that uses it. Registers nothing and changes nothing.
     *
     * @throws LimiterConfigurationException (or Boot's binding exceptions) for the first value that
     *     would have stopped startup
     */
    static Map<String, LimiterDefinition> define(LimiterDefinitions definitions, LimiterProperties next) {
        Set<String> names = new LinkedHashSet<>(definitions.names());
        names.addAll(next.getLimiters().keySet());
        Map<String, LimiterDefinition> defined = new LinkedHashMap<>();
        for (String name : names) {
            if (hasPlans(definitions.properties(), name) || hasPlans(next, name)) {
                // Plans are fixed at startup: checkFixed refuses any change to them.
                continue;
            }
            List<RateLimitedValues> used = definitions.uses(name);
            if (used.isEmpty()) {
                defined.put(name, LimiterDefinition.merge(next, name, null, property(name, "")));
                continue;
            }
            LimiterDefinition first = null;
            for (RateLimitedValues use : used) {
                LimiterDefinition definition = LimiterDefinition.merge(next, name, use, use.site());
                if (first == null) {
                    first = definition;
                }
                else if (!first.config().equals(definition.config())) {
                    throw new LimiterConfigurationException(use.site(), definition.config(),
                            "Limiter '" + name + "' would be defined as " + first.config() + " by " + used.get(0).site(),
                            "Give every @RateLimited(name = \"" + name + "\") the same values, or set them once under limiter.limiters." + name);
                }
            }
            defined.put(name, first);
        }
        return defined;
    }

    private static boolean hasPlans(LimiterProperties properties, String name) {
        LimiterProperties.Limiter limiter = properties.getLimiters().get(name);
        return limiter != null && !limiter.getPlans().isEmpty();
    }

    /**
     * Refuses a change of shadow mode by {@code next}: each method chose it at startup, and how its calls
     * are counted with it.
     */
    static void checkShadow(LimiterDefinitions definitions, LimiterProperties next) {
        LimiterProperties current = definitions.properties();
        Set<String> names = new LinkedHashSet<>(current.getLimiters().keySet());
        names.addAll(next.getLimiters().keySet());
        for (String name : names) {
            LimiterProperties.Limiter now = current.getLimiters().get(name);
            LimiterProperties.Limiter then = next.getLimiters().get(name);
            Boolean was = (now != null) ? now.getShadow() : null;
            Boolean will = (then != null) ? then.getShadow() : null;
            List<RateLimitedValues> used = definitions.uses(name);
            boolean changes = used.isEmpty() ? !Objects.equals(was, will)
                    : used.stream().anyMatch((use) -> ((was != null) ? was : use.annotation().shadow()) != ((will != null) ? will
                            : use.annotation().shadow()));
            if (changes) {
                throw new LimiterConfigurationException(property(name, "shadow"), will,
                        "Shadow mode is chosen per method at startup and cannot change while the application runs",
                        "Restart the application to apply it, or " + ((was != null) ? "set it back to " + was : "remove it"));
            }
        }
    }

    /** Refuses a change of what is fixed at startup, naming the first such property. */
    static void checkFixed(LimiterProperties current, LimiterProperties next) {
        Map<String, Function<LimiterProperties, Object>> fixed = new LinkedHashMap<>();
        fixed.put("limiter.backend", LimiterProperties::getBackend);
        fixed.put("limiter.key-prefix", LimiterProperties::getKeyPrefix);
        fixed.put("limiter.on-redis-failure", LimiterProperties::getOnRedisFailure);
        fixed.put("limiter.on-missing-key", LimiterProperties::getOnMissingKey);
        fixed.put("limiter.memory.max-keys", (p) -> p.getMemory().getMaxKeys());
        fixed.put("limiter.redis.timeout", (p) -> p.getRedis().getTimeout());
        fixed.put("limiter.redis.connect-timeout", (p) -> p.getRedis().getConnectTimeout());
        fixed.put("limiter.redis.outage-after", (p) -> p.getRedis().getOutageAfter());
        fixed.put("limiter.redis.probe-interval", (p) -> p.getRedis().getProbeInterval());
        fixed.put("limiter.redis.heartbeat-interval", (p) -> p.getRedis().getHeartbeatInterval());
        fixed.put("limiter.redis.expected-instances", (p) -> p.getRedis().getExpectedInstances());
        fixed.put("limiter.headers.enabled", (p) -> p.getHeaders().isEnabled());
        fixed.put("limiter.local-deny-cache.enabled", (p) -> p.getLocalDenyCache().isEnabled());
        fixed.put("limiter.local-deny-cache.max-keys", (p) -> p.getLocalDenyCache().getMaxKeys());
        fixed.put("limiter.client-ip.trusted-proxies", (p) -> p.getClientIp().getTrustedProxies());
        fixed.put("limiter.client-ip.ipv6-prefix-length", (p) -> p.getClientIp().getIpv6PrefixLength());
        fixed.put("limiter.client-ip.forwarded-header", (p) -> p.getClientIp().getForwardedHeader());
        fixed.put("limiter.rules", RetuneChecks::rules);
        fixed.put("limiter.rule-filter-order", LimiterProperties::getRuleFilterOrder);
        Set<String> names = new TreeSet<>(current.getLimiters().keySet());
        names.addAll(next.getLimiters().keySet());
        for (String name : names) {
            fixed.put(property(name, "plans"), (p) -> plans(p.getLimiters().get(name)));
        }
        fixed.forEach((property, value) -> {
            Object was = value.apply(current);
            Object now = value.apply(next);
            if (!Objects.equals(was, now)) {
                throw new LimiterConfigurationException(property, now, "Fixed at startup: it cannot change while the application runs",
                        "Restart the application to apply it, or set it back to " + was);
            }
        });
    }

    /** What the rules say, comparable: they are read once, when the filters are made. */
    private static List<List<Object>> rules(LimiterProperties properties) {
        return properties.getRules().stream()
            .map((rule) -> Arrays.<Object>asList(rule.getPaths(), rule.getMethods(), rule.getWhen(), rule.getUnless(), rule.getLimiter(),
                    rule.getKey(), rule.getCost()))
            .toList();
    }

    /**
     * What a limiter's plans say, comparable: each method picks among the plans registered at startup,
     * so plans, their limits and what picks them are fixed; null for a limiter without plans.
     */
    private static @Nullable List<Object> plans(LimiterProperties.@Nullable Limiter limiter) {
        if (limiter == null || (limiter.getPlans().isEmpty() && limiter.getUnlimitedKeys().isEmpty() && limiter.getPlan() == null
                && limiter.getPlanResolver() == null && limiter.getDefaultPlan() == null)) {
            return null;
        }
        Map<String, Object> plans = new TreeMap<>();
        limiter.getPlans().forEach((name, plan) -> plans.put(name, (plan != null) ? Arrays.<Object>asList(plan.getLimit(), plan.getWindow(),
                plan.getBurst(), plan.getLimits().stream().map((l) -> Arrays.<Object>asList(l.getLimit(), l.getWindow(), l.getBurst())).toList(),
                plan.isUnlimited()) : null));
        return Arrays.<Object>asList(plans, limiter.getPlan(), limiter.getPlanResolver(), limiter.getDefaultPlan(), limiter.getUnlimitedKeys());
    }
}
