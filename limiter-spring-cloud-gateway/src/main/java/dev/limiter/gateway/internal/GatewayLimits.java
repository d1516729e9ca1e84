package dev.limiter.gateway.internal;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.internal.ConfiguredRules;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.internal.web.RateLimitRule;
import dev.limiter.spring.internal.web.RateLimitRules;
import dev.limiter.spring.internal.web.RuleDecisions;

import org.jspecify.annotations.Nullable;

/**
 * What the gateway's filters share to limit routes: the limiters, the settings of limited calls (what a
 * missing key does, {@code #clientIp}, where decisions are recorded) and the configuration. Makes the
 * rules of the routes' Limiter filters and the limits of routes deciding through {@code RequestRateLimiter}.
 */
public final class GatewayLimits {

    /** The paths of a route's rule: the route's predicates chose the requests already. */
    private static final List<String> EVERY_PATH = List.of("/**");

    private final RateLimiterRegistry registry;

    private final RateLimitedMethods methods;

    private final LimiterProperties properties;

    private final @Nullable XRateLimitHeaders xRateLimitHeaders;

    /**
     * @param xRateLimitHeaders the X-RateLimit-* fields answers carry; null for none
     *     ({@link XRateLimitHeaders#configured})
     */
    public GatewayLimits(RateLimiterRegistry registry, RateLimitedMethods methods, LimiterProperties properties,
            @Nullable XRateLimitHeaders xRateLimitHeaders) {
        this.registry = registry;
        this.methods = methods;
        this.properties = properties;
        this.xRateLimitHeaders = xRateLimitHeaders;
    }

    /**
     * The rule of a route's Limiter filter, checked as a rule of limiter.rules is, applying to every
     * request of the route.
     *
     * @param property where the filter is configured, naming it in messages, such as
     *     {@code spring.cloud.gateway.server.webflux.routes[orders].filters[Limiter]}
     * @param limiter the limiter's name, one configured under limiter.limiters
     * @throws LimiterConfigurationException naming the argument of the first mistake
     */
    public RouteRule rule(String property, @Nullable String limiter, @Nullable String key, @Nullable String cost) {
        if (limiter == null || limiter.isBlank()) {
            throw new LimiterConfigurationException(property + ".limiter", "\"\"", "A Limiter filter needs the limiter that decides its route",
                    "Name a limiter configured under limiter.limiters, such as - Limiter=orders, or args: {limiter: orders}");
        }
        RateLimitRule rule = ConfiguredRules.rule(property, EVERY_PATH, List.of(), null, null, limiter, key, cost, properties);
        return new RouteRule(new RateLimitRules(List.of(rule), registry, methods), rule.shadow() ? null : xRateLimitHeaders);
    }

    /**
     * The limit of a route deciding through RequestRateLimiter with limiter {@code name}.
     *
     * @param site the route and its filter, for messages
     * @param argument the filter argument naming the limiter, for messages
     * @throws LimiterConfigurationException when no limiter has that name
     */
    public RouteLimit routeLimit(String name, String site, String argument) {
        refusePlans(site + ": " + argument, name);
        RateLimiter limiter = registry.find(name).orElseThrow(() -> noSuchLimiter(name, site, argument));
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        boolean shadow = configured != null && Boolean.TRUE.equals(configured.getShadow());
        return new RouteLimit(limiter, site, shadow, methods.outcomes(), properties.getHeaders().isEnabled(), shadow ? null : xRateLimitHeaders);
    }

    /**
     * Checks where a route is defined (a Java route, before the registry holds every configured limiter)
     * that limiter {@code name} can decide it through RequestRateLimiter: configured, and without plans.
     *
     * @throws LimiterConfigurationException naming {@code site} when it cannot
     */
    public void checkRouteLimiter(String name, String site, String argument) {
        refusePlans(site + ": " + argument, name);
        if (registry.find(name).isEmpty() && !properties.getLimiters().containsKey(name)) {
            throw noSuchLimiter(name, site, argument);
        }
    }

    private LimiterConfigurationException noSuchLimiter(String name, String site, String argument) {
        Set<String> names = new TreeSet<>(registry.names());
        names.addAll(properties.getLimiters().keySet());
        return new LimiterConfigurationException(site + ": " + argument, name, "There is no limiter '" + name + "'", "Configure limiter.limiters."
                + name + " (its limit and window), or name one of the limiters configured with the filter argument " + argument + ": "
                + (names.isEmpty() ? "(none)" : String.join(", ", names)));
    }

    /**
     * Checks at startup the limiter of a route deciding through RequestRateLimiter, as
     * {@link #routeLimit} does on the route's first request: it exists and has no plans.
     *
     * @param property the filter argument naming the limiter, such as
     *     {@code spring.cloud.gateway.server.webflux.routes[2].filters[0].args.limiter.name}
     * @param named whether that argument is set; if not, the limiter is the one named as the route's id
     * @throws LimiterConfigurationException naming {@code property}, the limiter (the route's id when not set) and the fix
     */
    public void checkRouteLimiter(String property, String routeId, String name, boolean named) {
        refusePlans(property, name);
        if (registry.find(name).isPresent()) {
            return;
        }
        String configured = registry.names().isEmpty() ? "(none)" : String.join(", ", registry.names());
        if (named) {
            throw new LimiterConfigurationException(property, name, "Route '" + routeId + "' limits with RequestRateLimiter through Limiter, "
                    + "and there is no limiter '" + name + "'", "Configure limiter.limiters." + name + " (its limit and window), or name "
                            + "one of the limiters configured: " + configured);
        }
        throw new LimiterConfigurationException(property, name, "Route '" + routeId + "' limits with RequestRateLimiter through Limiter "
                + "without naming a limiter, so the limiter named as the route's id decides, and there is no limiter '" + name + "'",
                "Configure limiter.limiters." + name + " (its limit and window), or set the filter argument limiter.name to one of the "
                        + "limiters configured: " + configured);
    }

    /**
     * RequestRateLimiter cannot choose a plan per request: it hands Limiter a key and a route, not the
     * request a plan is picked from. A limiter with plans has no limiter of its own and would fail every
     * request of the route with a server error: refused where the route names it instead. (The Limiter
     * filter, a rule, picks plans.)
     */
    private void refusePlans(String where, String name) {
        LimiterProperties.Limiter configured = properties.getLimiters().get(name);
        if (configured != null && !configured.getPlans().isEmpty()) {
            throw new LimiterConfigurationException(where, name, "Limiter '" + name + "' has plans " + configured.getPlans().keySet()
                    + ", and RequestRateLimiter cannot choose a plan per request",
                    "Use the Limiter filter on this route, which picks the plan of each request, or name a limiter without plans");
        }
    }

    /**
     * The rules of one Limiter filter, and the X-RateLimit-* fields its answers carry (null for none; none
     * in shadow mode, as the RateLimit fields).
     */
    public record RouteRule(RateLimitRules rules, @Nullable XRateLimitHeaders xRateLimitHeaders) {

        /** What the rules tell of each decision: its X-RateLimit-* fields, given to {@code header}. */
        public RuleDecisions decisions(BiConsumer<String, String> header) {
            XRateLimitHeaders fields = xRateLimitHeaders;
            return (fields != null) ? (limiter, cost, decision) -> fields.put(limiter, cost, decision, header) : RuleDecisions.NONE;
        }
    }
}
