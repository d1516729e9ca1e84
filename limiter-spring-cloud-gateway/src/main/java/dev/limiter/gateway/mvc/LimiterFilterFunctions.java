package dev.limiter.gateway.mvc;

import java.util.function.Function;

import dev.limiter.gateway.internal.MvcLimiterFilter;

import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The {@code Limiter} filter of Spring Cloud Gateway's Server MVC gateway: limits a route as a rule of
 * {@code limiter.rules} limits requests, with the same arguments as the reactive gateway's Limiter filter
 * ({@code #request} is the {@code HttpServletRequest}), and answers as a rule does: RateLimit header
 * fields, a 429 with {@code Retry-After} and a problem detail from the application's
 * {@code RateLimitExceededHandler} (400 for a missing key), plus the {@code X-RateLimit-*} fields as
 * configured ({@code limiter.gateway.*}).
 * <p>In Java route definitions:
 * <pre>
 * route("orders").GET("/orders/**", http())
 *     .before(uri("http://orders:8080"))
 *     .filter(LimiterFilterFunctions.limiter("orders", "#request.getHeader('X-Api-Key')"))
 *     .build();
 * </pre>
 * or with the key given by a function of the request:
 * {@code LimiterFilterFunctions.limiter("orders", (request) -> request.headers().firstHeader("X-Api-Key"))}.
 * In YAML routes ({@code spring.cloud.gateway.server.webmvc.routes}): {@code - Limiter=orders}, or
 * {@code - name: Limiter} with {@code args: {limiter: orders, key: "#request.getHeader('X-Api-Key')"}}.
 */
public final class LimiterFilterFunctions {

    private LimiterFilterFunctions() {
    }

    /** Limits every request of the route under one key of limiter {@code limiter}. */
    @Shortcut
    public static HandlerFilterFunction<ServerResponse, ServerResponse> limiter(String limiter) {
        return new MvcLimiterFilter(limiter, (String) null, null);
    }

    /**
     * Limits each request of the route under the key that {@code key} gives.
     *
     * @param limiter name of the limiter deciding, one of limiter.limiters
     * @param key SpEL over {@code #request}, {@code #principal} and {@code #clientIp}; null or empty for one key
     */
    @Shortcut
    public static HandlerFilterFunction<ServerResponse, ServerResponse> limiter(String limiter, @Nullable String key) {
        return new MvcLimiterFilter(limiter, key, null);
    }

    /**
     * Limits each request of the route under the key that {@code key} gives, taking the permits {@code cost} gives.
     *
     * @param limiter name of the limiter deciding, one of limiter.limiters
     * @param key SpEL over {@code #request}, {@code #principal} and {@code #clientIp}; null or empty for one key
     * @param cost permits each request takes, a whole number of at least 1 or SpEL giving one; null for 1
     */
    @Shortcut
    public static HandlerFilterFunction<ServerResponse, ServerResponse> limiter(String limiter, @Nullable String key, @Nullable String cost) {
        return new MvcLimiterFilter(limiter, key, cost);
    }

    /**
     * Limits each request of the route under the key that {@code keyResolver} gives, as Bucket4j's filter
     * functions take a key resolver. For Java routes only: YAML routes give the key as SpEL.
     *
     * @param limiter name of the limiter deciding, one of limiter.limiters
     * @param keyResolver each request's key; null or empty for a missing key, which follows limiter.on-missing-key
     */
    public static HandlerFilterFunction<ServerResponse, ServerResponse> limiter(String limiter,
            Function<ServerRequest, @Nullable String> keyResolver) {
        return new MvcLimiterFilter(limiter, keyResolver, null);
    }

    /**
     * Limits each request of the route under the key that {@code keyResolver} gives, taking {@code cost}
     * permits. For Java routes only.
     *
     * @param limiter name of the limiter deciding, one of limiter.limiters
     * @param keyResolver each request's key; null or empty for a missing key, which follows limiter.on-missing-key
     * @param cost permits each request takes, at least 1
     */
    public static HandlerFilterFunction<ServerResponse, ServerResponse> limiter(String limiter,
            Function<ServerRequest, @Nullable String> keyResolver, long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("The Limiter filter function's cost must be a whole number of at least 1, not " + cost
                    + ": give the permits each request of the route takes, such as limiter(\"" + limiter + "\", keyResolver, 1)");
        }
        return new MvcLimiterFilter(limiter, keyResolver, Long.toString(cost));
    }

    /** Offers the filter functions to YAML routes (listed in META-INF/spring.factories). */
    public static class FilterSupplier extends SimpleFilterSupplier {

        public FilterSupplier() {
            super(LimiterFilterFunctions.class);
        }
    }
}
