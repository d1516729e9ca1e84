package dev.limiter.autoconfigure.internal;

import java.util.ArrayList;
import java.util.List;

import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.internal.web.RateLimitRule;
import dev.limiter.spring.internal.web.RateLimitRules;

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
        String name = (rule.getLimiter() != null) ? rule.getLimiter().trim() : "";
        LimiterProperties.Limiter limiter = properties.getLimiters().get(name);
        if (!name.isEmpty() && limiter == null) {
            throw new LimiterConfigurationException(property + ".limiter", name, "There is no limiter '" + name + "' under limiter.limiters",
                    "Configure limiter.limiters." + name + " (its limit and window), or name one of the limiters configured: "
                            + (properties.getLimiters().isEmpty() ? "(none)" : String.join(", ", properties.getLimiters().keySet())));
        }
        boolean shadow = limiter != null && Boolean.TRUE.equals(limiter.getShadow());
        return new RateLimitRule(property, rule.getPaths(), rule.getMethods(), rule.getWhen(), rule.getUnless(), name, rule.getKey(),
                rule.getCost(), shadow);
    }
}
