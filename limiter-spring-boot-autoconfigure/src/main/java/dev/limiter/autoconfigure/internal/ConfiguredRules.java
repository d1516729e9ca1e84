package dev.limiter.autoconfigure.internal;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.internal.web.RateLimitRule;
import dev.limiter.spring.internal.web.RateLimitRules;

import org.jspecify.annotations.Nullable;

/**
 * The rules of {@code limiter.rules}, checked: each names a limiter configured under
 * {@code limiter.limiters} (whose {@code shadow} it follows), and {@link RateLimitRules} checks the
 * rest. A mistake fails startup naming the property, as every configuration mistake does. Read by the
 * web filters, which apply the rules, and by the actuator endpoint, which lists them.
 */
public final class ConfiguredRules {

    private ConfiguredRules() {
    }

    /**
     * The rules of limiter.rules, each named by its property ("limiter.rules[0]").
     *
     * @throws LimiterConfigurationException naming the property of a rule whose limiter is not configured
     */
    public static List<RateLimitRule> rules(LimiterProperties properties) {
        List<RateLimitRule> rules = new ArrayList<>();
        List<LimiterProperties.Rule> configured = properties.getRules();
        for (int i = 0; i < configured.size(); i++) {
            rules.add(rule("limiter.rules[" + i + "]", configured.get(i), properties));
        }
        return rules;
    }

    private static RateLimitRule rule(String property, LimiterProperties.Rule rule, LimiterProperties properties) {
        return rule(property, rule.getPaths(), rule.getMethods(), rule.getWhen(), rule.getUnless(), rule.getLimiter(), rule.getKey(),
                rule.getCost(), properties);
    }

    /**
     * A rule configured elsewhere than under limiter.rules, such as by a gateway route's filter, checked
     * as those are: its limiter must be configured under limiter.limiters (whose shadow it follows).
     *
     * @param property where the rule is configured, naming it in messages
     * @throws LimiterConfigurationException naming {@code property + ".limiter"} when the limiter is not configured
     */
    public static RateLimitRule rule(String property, List<String> paths, List<String> methods, @Nullable String when,
            @Nullable String unless, @Nullable String limiterName, @Nullable String key, @Nullable String cost, LimiterProperties properties) {
        String name = (limiterName != null) ? limiterName.trim() : "";
        LimiterProperties.Limiter limiter = properties.getLimiters().get(name);
        if (!name.isEmpty() && limiter == null) {
            throw new LimiterConfigurationException(property + ".limiter", name, "There is no limiter '" + name + "' under limiter.limiters",
                    "Configure limiter.limiters." + name + " (its limit and window), or name one of the limiters configured: "
                            + (properties.getLimiters().isEmpty() ? "(none)" : String.join(", ", properties.getLimiters().keySet())));
        }
        boolean shadow = limiter != null && Boolean.TRUE.equals(limiter.getShadow());
        return new RateLimitRule(property, paths, methods, when, unless, name, key, cost, shadow);
    }
}
