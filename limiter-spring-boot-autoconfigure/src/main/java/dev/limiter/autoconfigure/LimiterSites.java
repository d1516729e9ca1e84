package dev.limiter.autoconfigure;

import java.util.List;
import java.util.Map;

/**
 * Where limiters of {@code limiter.limiters} are used besides {@code @RateLimited} methods and
 * {@code limiter.rules}, such as gateway routes or outgoing calls. A module that decides by limiters named
 * in its own configuration declares a bean of this type, so that the startup check counts those limiters
 * as used, and names these places, instead of reporting them as used by nothing.
 */
@FunctionalInterface
public interface LimiterSites {

    /**
     * By limiter name, the places that use it, such as
     * {@code spring.cloud.gateway.server.webflux.routes[0] (route orders)}.
     */
    Map<String, List<String>> sites();
}
