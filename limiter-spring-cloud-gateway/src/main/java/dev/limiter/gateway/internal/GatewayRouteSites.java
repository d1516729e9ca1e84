package dev.limiter.gateway.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;

/**
 * The limiters that a gateway's configured routes name, by limiter, with the route properties naming them:
 * the {@code Limiter} filter's limiter (its first shortcut argument or {@code limiter}; the route's id when
 * the reactive gateway's filter names none), and {@code RequestRateLimiter} with Limiter's rate limiter
 * ({@code #{@limiter}}), whose {@code limiter.name} defaults to the route's id. Routes built in Java are
 * not seen. {@link #check(GatewayLimits, boolean)} checks these filters at startup, as a rule of
 * {@code limiter.rules} is checked, instead of on each route's first request.
 */
public final class GatewayRouteSites {

    private static final String SHORTCUT = "_genkey_";

    /** RedisRateLimiter's arguments on a route, however written (redis-rate-limiter.replenishRate, redisRateLimiter.replenish-rate). */
    private static final String REDIS_RATE_LIMITER = "redisratelimiter.";

    /** The order in which the refusal names RedisRateLimiter's arguments, the rest after them. */
    private static final List<String> ORDER = List.of(REDIS_RATE_LIMITER + "replenishrate", REDIS_RATE_LIMITER + "burstcapacity",
            REDIS_RATE_LIMITER + "requestedtokens");

    private final Map<String, List<String>> sites = new LinkedHashMap<>();

    private final List<Consumer<GatewayLimits>> checks = new ArrayList<>();

    /** The checks of RequestRateLimiter filters, which decide through Limiter only while the bean {@code limiter} is Limiter's. */
    private final List<Consumer<GatewayLimits>> requestRateLimiterChecks = new ArrayList<>();

    /**
     * Adds a filter of a route, or a default filter.
     *
     * @param where the property of the route or default filter, such as
     *     {@code spring.cloud.gateway.server.webflux.routes[0] (route orders)}
     * @param filter the property of the filter, such as {@code spring.cloud.gateway.server.webflux.routes[0].filters[1]}
     * @param routeId the route's id; null for a default filter, which applies to every route
     * @param idNamesLimiter whether a Limiter filter without a limiter is the route id's (the reactive gateway)
     */
    public void filter(String where, String filter, @Nullable String routeId, @Nullable String name, Map<String, String> args,
            boolean idNamesLimiter) {
        if ("Limiter".equalsIgnoreCase(name)) {
            String limiter = first(args.get("limiter"), args.get(SHORTCUT + 0), idNamesLimiter ? routeId : null);
            add(limiter, where);
            if (limiter != null && !limiter.isBlank()) {
                String key = first(args.get("key"), args.get(SHORTCUT + 1));
                String cost = first(args.get("cost"), args.get(SHORTCUT + 2));
                checks.add((limits) -> limits.rule(filter + ".args", limiter, key, cost));
            }
        }
        else if ("RequestRateLimiter".equals(name) && usesLimiter(args)) {
            String limiter = first(args.get("limiter.name"), routeId);
            add(limiter, where);
            if (limiter != null) {
                String route = (routeId != null) ? routeId : "(every route)";
                requestRateLimiterChecks.add((limits) -> refuseRedisRateLimiterArguments(filter + ".args", route, limiter.trim(), args));
                requestRateLimiterChecks.add((limits) -> limits.checkRouteLimiter(filter + ".args.limiter.name", route, limiter.trim(),
                        first(args.get("limiter.name")) != null));
            }
        }
    }

    private static boolean usesLimiter(Map<String, String> args) {
        String rateLimiter = first(args.get("rate-limiter"), args.get("rateLimiter"));
        return rateLimiter != null && rateLimiter.replace(" ", "").contains("@limiter}");
    }

    private void add(@Nullable String limiter, String where) {
        if (limiter != null && !limiter.isBlank()) {
            sites.computeIfAbsent(limiter.trim(), (n) -> new ArrayList<>()).add(where);
        }
    }

    private static @Nullable String first(@Nullable String... values) {
        for (String value : values) {
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }

    /** By limiter, the route properties naming it. */
    public Map<String, List<String>> sites() {
        return sites;
    }

    /**
     * Checks every filter added, as its route's first request would: the limiters they name exist (a
     * {@code RequestRateLimiter}'s has no plans), the Limiter filters' keys and costs parse, and no
     * RedisRateLimiter argument sits beside {@code rate-limiter: "#{@limiter}"}, where it would be ignored.
     *
     * @param requestRateLimiter whether to check the RequestRateLimiter filters: whether the bean {@code limiter} is Limiter's
     * @throws LimiterConfigurationException naming the route's property, the bad value and the fix, for the first mistake
     */
    public void check(GatewayLimits limits, boolean requestRateLimiter) {
        checks.forEach((check) -> check.accept(limits));
        if (requestRateLimiter) {
            requestRateLimiterChecks.forEach((check) -> check.accept(limits));
        }
    }

    private static int rank(String argument) {
        int rank = ORDER.indexOf(argument.replace("-", "").toLowerCase(Locale.ROOT));
        return (rank < 0) ? ORDER.size() : rank;
    }

    /**
     * Limiter reads none of RedisRateLimiter's arguments: left on a route that moved to {@code #{@limiter}},
     * they would look like the route's limit and be silently ignored. Refused, saying what replaces each.
     */
    private static void refuseRedisRateLimiterArguments(String argsProperty, String routeId, String limiter, Map<String, String> args) {
        String first = null;
        List<String> replacements = new ArrayList<>();
        List<Map.Entry<String, String>> inOrder = new ArrayList<>(args.entrySet());
        inOrder.sort(Comparator.comparingInt((arg) -> rank(arg.getKey())));
        for (Map.Entry<String, String> arg : inOrder) {
            String normalized = arg.getKey().replace("-", "").toLowerCase(Locale.ROOT);
            if (!normalized.startsWith(REDIS_RATE_LIMITER)) {
                continue;
            }
            if (first == null) {
                first = arg.getKey();
            }
            String value = arg.getValue();
            replacements.add(switch (normalized.substring(REDIS_RATE_LIMITER.length())) {
                case "replenishrate" -> arg.getKey() + ": " + value + " is limiter.limiters." + limiter + ".limit: " + value
                        + " with window: 1s (algorithm: token-bucket)";
                case "burstcapacity" -> arg.getKey() + ": " + value + " is limiter.limiters." + limiter + ".burst: " + value;
                case "requestedtokens" -> arg.getKey() + ": " + value + " is the filter argument limiter.cost: " + value;
                default -> arg.getKey() + " has no counterpart: remove it";
            });
        }
        if (first != null) {
            throw new LimiterConfigurationException(argsProperty + "." + first, args.get(first), "Route '" + routeId
                    + "' decides through Limiter (rate-limiter: \"#{@limiter}\"), which reads none of RedisRateLimiter's "
                    + "redis-rate-limiter.* arguments: they would be ignored", "Remove them and set the route's limit in Limiter: "
                            + String.join("; ", replacements) + " (see Moving from RedisRateLimiter in docs/gateway.md)");
        }
    }
}
