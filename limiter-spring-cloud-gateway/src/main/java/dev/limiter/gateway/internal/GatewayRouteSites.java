package dev.limiter.gateway.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The limiters that a gateway's configured routes name, by limiter, with the route properties naming them:
 * the {@code Limiter} filter's limiter (its first shortcut argument or {@code limiter}; the route's id when
 * the reactive gateway's filter names none), and {@code RequestRateLimiter} with Limiter's rate limiter
 * ({@code #{@limiter}}), whose {@code limiter.name} defaults to the route's id. Routes built in Java are
 * not seen.
 */
public final class GatewayRouteSites {

    private static final String SHORTCUT = "_genkey_0";

    private final Map<String, List<String>> sites = new LinkedHashMap<>();

    /**
     * Adds a filter of a route, or a default filter.
     *
     * @param where the property of the route or default filter, such as
     *     {@code spring.cloud.gateway.server.webflux.routes[0] (route orders)}
     * @param routeId the route's id; null for a default filter, which applies to every route
     * @param idNamesLimiter whether a Limiter filter without a limiter is the route id's (the reactive gateway)
     */
    public void filter(String where, @Nullable String routeId, @Nullable String name, Map<String, String> args, boolean idNamesLimiter) {
        if ("Limiter".equalsIgnoreCase(name)) {
            String limiter = first(args.get("limiter"), args.get(SHORTCUT), idNamesLimiter ? routeId : null);
            add(limiter, where);
        }
        else if ("RequestRateLimiter".equals(name) && usesLimiter(args)) {
            add(first(args.get("limiter.name"), routeId), where);
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
}
