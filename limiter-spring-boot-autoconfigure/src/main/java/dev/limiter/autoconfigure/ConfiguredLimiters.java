package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterDefinition.property;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.limiter.Algorithm;
import dev.limiter.spring.LimiterConfigurationException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The limiters {@code limiter.limiters} configures, registered at startup when configuration alone
 * defines them completely, and checked once every annotated bean is known: one that nothing completes
 * is an error, one that nothing uses is reported with the name perhaps meant.
 */
final class ConfiguredLimiters {

    private static final Log logger = LogFactory.getLog(ConfiguredLimiters.class);

    private ConfiguredLimiters() {
    }

    /** Registers the limiters (and plans) that configuration alone defines completely, so they fail fast too. */
    static void register(LimiterDefinitions definitions) {
        definitions.properties().getLimiters().forEach((name, limiter) -> {
            if (isComplete(limiter)) {
                if (limiter.getPlans().isEmpty()) {
                    definitions.limiterFor(name, null, property(name, ""));
                }
                else {
                    definitions.registerPlans(name, limiter);
                }
            }
        });
    }

    /**
     * Whether configuration sets every value an annotation could supply. Otherwise registering now
     * would fix defaults (algorithm, burst, sub-windows, max-wait) before an annotation of that name
     * can provide its own.
     */
    private static boolean isComplete(LimiterProperties.Limiter limiter) {
        Algorithm algorithm = limiter.getAlgorithm();
        if (algorithm == null) {
            return false;
        }
        List<LimiterProperties.Limit> own = limiter.getPlans().isEmpty() ? List.of(limiter)
                : limiter.getPlans().values().stream().filter((plan) -> plan == null || !plan.isUnlimited())
                    .map(LimiterProperties.Limit.class::cast).toList();
        boolean limits = own.stream().allMatch(ConfiguredLimiters::hasLimits);
        boolean bursts = own.stream().allMatch(ConfiguredLimiters::hasBursts);
        boolean bucketOptions = !algorithm.isBucket() || (bursts && limiter.getMaxWait() != null);
        boolean slidingOptions = algorithm != Algorithm.SLIDING_WINDOW || limiter.getSubWindows() != null;
        return limits && bucketOptions && slidingOptions;
    }

    private static boolean hasLimits(LimiterProperties.Limit limit) {
        if (limit == null) {
            return false;
        }
        List<LimiterProperties.Limit> several = several(limit);
        return !several.isEmpty() || (limit.getLimit() != null && limit.getWindow() != null);
    }

    private static boolean hasBursts(LimiterProperties.Limit limit) {
        List<LimiterProperties.Limit> several = several(limit);
        return several.isEmpty() ? limit.getBurst() != null : several.stream().allMatch((each) -> each.getBurst() != null);
    }

    /** The several limits of a limiter or plan; empty when it has one limit. */
    private static List<LimiterProperties.Limit> several(LimiterProperties.Limit limit) {
        if (limit instanceof LimiterProperties.Limiter limiter) {
            return limiter.getLimits();
        }
        return (limit instanceof LimiterProperties.Plan plan) ? plan.getLimits() : List.of();
    }

    /**
     * Checks every configured limiter once all annotated beans are known: one that is neither
     * complete on its own nor completed by an annotation is an error (often a misspelt name), and so
     * are plans that nothing can pick from. One that no annotation, rule or route of {@code others} (gateway
     * routes, outgoing calls) uses is reported, with the used name closest to it: code may still get it
     * from the registry, so it is no error.
     */
    static void check(LimiterDefinitions definitions, List<LimiterSites> others) {
        LimiterProperties properties = definitions.properties();
        Set<String> used = new TreeSet<>(definitions.usedNames());
        properties.getRules().stream().map(LimiterProperties.Rule::getLimiter).filter(Objects::nonNull).map(String::trim).forEach(used::add);
        Map<String, List<String>> elsewhere = new TreeMap<>();
        others.forEach((sites) -> sites.sites().forEach((name, where) -> elsewhere.computeIfAbsent(name, (n) -> new ArrayList<>()).addAll(where)));
        used.addAll(elsewhere.keySet());
        properties.getLimiters().forEach((name, limiter) -> {
            String closest = used.contains(name) ? null : Misspelling.closest(name, used);
            try {
                if (!definitions.usedNames().contains(name)) {
                    definitions.plans(name, null, property(name, ""));
                }
                if (limiter.getPlans().isEmpty() && !definitions.isRegistered(name)) {
                    definitions.limiterFor(name, null, property(name, ""));
                }
            }
            catch (LimiterConfigurationException ex) {
                if (closest == null) {
                    throw ex;
                }
                throw new LimiterConfigurationException(ex.getWhere(), ex.getValue(), ex.getProblem() + "; no @RateLimited method or "
                        + "limiter.rules entry uses limiter '" + name + "': did you mean '" + closest + "'?", "Rename "
                                + property(name, "") + " to " + property(closest, "") + " if that is the limiter meant, else: "
                                + ex.getAction());
            }
            if (!used.contains(name)) {
                reportUnused(definitions, name, closest, used, elsewhere);
            }
        });
    }

    private static void reportUnused(LimiterDefinitions definitions, String name, @Nullable String closest, Set<String> used,
            Map<String, List<String>> elsewhere) {
        String unused = property(name, "") + " configures a limiter that no @RateLimited method, limiter.rules entry or route uses";
        if (closest != null) {
            List<String> sites = new ArrayList<>(usedBy(definitions, closest));
            sites.addAll(elsewhere.getOrDefault(closest, List.of()));
            logger.warn(unused + "; did you mean '" + closest + "' (used by " + String.join(", ", sites) + ")? Rename "
                    + property(name, "") + " to " + property(closest, "") + " if so; ignore this if code gets '" + name
                    + "' from the RateLimiterRegistry");
        }
        else if (logger.isInfoEnabled()) {
            logger.info(unused + ": only code that gets it from the RateLimiterRegistry uses it"
                    + (used.isEmpty() ? "" : " (the limiters used are " + used + ")"));
        }
    }

    /** The sites of the annotations, then the rules, that use limiter {@code name}. */
    private static List<String> usedBy(LimiterDefinitions definitions, String name) {
        List<String> sites = new ArrayList<>(definitions.sites(name));
        List<LimiterProperties.Rule> rules = definitions.properties().getRules();
        for (int i = 0; i < rules.size(); i++) {
            String limiter = rules.get(i).getLimiter();
            if (limiter != null && name.equals(limiter.trim())) {
                sites.add("limiter.rules[" + i + "]");
            }
        }
        return sites;
    }
}
