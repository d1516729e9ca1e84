package dev.limiter.gateway;

import java.util.List;

import dev.limiter.gateway.internal.GatewayLimits;
import dev.limiter.spring.internal.web.RuleDecisions;
import dev.limiter.spring.internal.web.WebFluxRejections;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.support.HasRouteId;
import reactor.core.publisher.Mono;

/**
 * The {@code Limiter} filter of the reactive gateway: limits a route as a rule of {@code limiter.rules}
 * limits requests, with everything a rule has (a SpEL key and cost over {@code #request},
 * {@code #principal} and {@code #clientIp}, the limiter's algorithm, limits, max-wait, shadow mode,
 * failure policy, deny cache and metrics, {@code limiter.on-missing-key}) and answers as a rule does:
 * RateLimit header fields, and a rejection answered by WebFlux's exception handling (429, {@code Retry-After},
 * problem detail; 400 for a missing key), plus the {@code X-RateLimit-*} fields as configured
 * ({@link LimiterGatewayProperties}).
 * <pre>
 * filters:
 *   - Limiter=orders
 *   - name: Limiter
 *     args: {limiter: orders, key: "#request.headers.getFirst('X-Api-Key')", cost: 1}
 * </pre>
 * Without {@code limiter}, the limiter named as the route's id decides (in {@code default-filters}, each
 * route's).
 */
public class LimiterGatewayFilterFactory extends AbstractGatewayFilterFactory<LimiterGatewayFilterFactory.Config> {

    private final GatewayLimits limits;

    private final WebFluxRejections rejections;

    private final ObjectProvider<GatewayProperties> gateway;

    LimiterGatewayFilterFactory(GatewayLimits limits, WebFluxRejections rejections, ObjectProvider<GatewayProperties> gateway) {
        super(Config.class);
        this.limits = limits;
        this.rejections = rejections;
        this.gateway = gateway;
    }

    @Override
    public List<String> shortcutFieldOrder() {
        return List.of("limiter", "key", "cost");
    }

    @Override
    public GatewayFilter apply(Config config) {
        String routeId = (config.getRouteId() != null) ? config.getRouteId() : "";
        String limiter = (config.getLimiter() != null && !config.getLimiter().isBlank()) ? config.getLimiter() : routeId;
        String property = property(routeId);
        GatewayLimits.RouteRule rule = limits.rule(property, limiter, config.getKey(), config.getCost());
        return (exchange, chain) -> {
            RuleDecisions decisions = rule.decisions(exchange.getResponse().getHeaders()::set);
            return rule.rules()
                .admit(exchange, decisions)
                .then(Mono.just(true))
                .onErrorResume(WebFluxRejections::isRejection, (ex) -> rejections.answer(exchange, ex).then(Mono.just(false)))
                .flatMap((admitted) -> admitted ? chain.filter(exchange) : Mono.empty());
        };
    }

    /**
     * Where the filter of route {@code routeId} is configured, for messages. The gateway applies a filter
     * of default-filters to each route as the route's own, with the route's id: a route of the gateway's
     * properties without a Limiter filter of its own has it from default-filters.
     */
    private String property(String routeId) {
        GatewayProperties gateway = this.gateway.getIfAvailable();
        if (gateway != null) {
            boolean own = gateway.getRoutes().stream().filter((route) -> routeId.equals(route.getId())).findFirst()
                .map((route) -> route.getFilters().stream().anyMatch(LimiterGatewayFilterFactory::isLimiter)).orElse(true);
            List<FilterDefinition> defaults = gateway.getDefaultFilters();
            for (int i = 0; i < defaults.size() && !own; i++) {
                if (isLimiter(defaults.get(i))) {
                    return "spring.cloud.gateway.server.webflux.default-filters[" + i + "]";
                }
            }
        }
        return "spring.cloud.gateway.server.webflux.routes[" + routeId + "].filters[Limiter]";
    }

    private static boolean isLimiter(FilterDefinition filter) {
        return "Limiter".equalsIgnoreCase(filter.getName());
    }

    /** The arguments of one route's Limiter filter. */
    public static class Config implements HasRouteId {

        private @Nullable String limiter;

        private @Nullable String key;

        private @Nullable String cost;

        private @Nullable String routeId;

        /** Name of the limiter deciding, one of limiter.limiters; null for the one named as the route's id. */
        public @Nullable String getLimiter() {
            return limiter;
        }

        public Config setLimiter(@Nullable String limiter) {
            this.limiter = limiter;
            return this;
        }

        /** SpEL giving each request's key; null for one key shared by every request of the route. */
        public @Nullable String getKey() {
            return key;
        }

        public Config setKey(@Nullable String key) {
            this.key = key;
            return this;
        }

        /** Permits each request takes, a whole number of at least 1 or SpEL giving one; null for 1. */
        public @Nullable String getCost() {
            return cost;
        }

        public Config setCost(@Nullable String cost) {
            this.cost = cost;
            return this;
        }

        @Override
        public void setRouteId(String routeId) {
            this.routeId = routeId;
        }

        @Override
        public @Nullable String getRouteId() {
            return routeId;
        }
    }
}
