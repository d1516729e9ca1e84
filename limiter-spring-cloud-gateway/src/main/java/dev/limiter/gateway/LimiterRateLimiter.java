package dev.limiter.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.gateway.internal.GatewayLimits;
import dev.limiter.gateway.internal.RouteLimit;

import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud Gateway {@code RateLimiter} deciding through Limiter, for routes limited by the gateway's
 * own {@code RequestRateLimiter} filter and its {@code KeyResolver} beans: registered as the bean
 * {@code limiter}, routes name it with {@code rate-limiter: "#{@limiter}"}. Each route is decided by the
 * limiter named by its filter argument {@code limiter.name}, else by the limiter named as the route's
 * id, one of {@code limiter.limiters}; the argument {@code limiter.cost} sets the permits each request
 * takes (1 by default). Decisions go through Limiter's reactive path, without blocking: algorithms,
 * several limits, max-wait, shadow mode, the failure policy, the deny cache and metrics are the
 * limiter's; answers carry the RateLimit header fields, {@code Retry-After} on a rejection, and the
 * {@code X-RateLimit-*} fields of {@code RedisRateLimiter} unless limiter.gateway.redis-rate-limiter-headers is false.
 */
public class LimiterRateLimiter extends AbstractRateLimiter<LimiterRateLimiter.Config> {

    /** The prefix of this rate limiter's filter arguments: {@code limiter.name}, {@code limiter.cost}. */
    public static final String CONFIGURATION_PROPERTY_NAME = "limiter";

    private final GatewayLimits limits;

    /** Each route's limit, by route id and limiter, made on its first request. */
    private final Map<String, RouteLimit> routes = new ConcurrentHashMap<>();

    LimiterRateLimiter(GatewayLimits limits, @Nullable ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.limits = limits;
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config config = getConfig().get(routeId);
        String name = (config != null && config.getName() != null && !config.getName().isBlank()) ? config.getName().trim() : routeId;
        long cost = (config != null) ? config.getCost() : 1;
        RouteLimit route;
        try {
            route = routes.computeIfAbsent(routeId + "\n" + name, (k) -> limits.routeLimit(name, "RequestRateLimiter of route '"
                    + routeId + "'", CONFIGURATION_PROPERTY_NAME + ".name"));
        }
        catch (RuntimeException ex) {
            return Mono.error(ex);
        }
        return Mono.fromCompletionStage(() -> route.deciding().tryAcquireAsync(id, cost)).flatMap((decision) -> {
            RouteLimit.Answer answer = route.follow(id, cost, decision);
            Mono<Response> response = Mono.just(new Response(answer.allowed(), answer.headerFields()));
            return answer.turnIn().isZero() ? response : response.delayElement(answer.turnIn());
        });
    }

    /** The arguments of one route's RequestRateLimiter filter, prefixed {@code limiter.}. */
    public static class Config {

        /** Name of the limiter deciding the route; null for the one named as the route's id. */
        private @Nullable String name;

        /** Permits each request takes. */
        private long cost = 1;

        public @Nullable String getName() {
            return name;
        }

        public Config setName(@Nullable String name) {
            this.name = name;
            return this;
        }

        public long getCost() {
            return cost;
        }

        public Config setCost(long cost) {
            if (cost < 1) {
                throw new IllegalArgumentException("limiter.cost must be a whole number of at least 1, not " + cost
                        + ": set the permits each request of the route takes, such as limiter.cost: 1");
            }
            this.cost = cost;
            return this;
        }

        @Override
        public String toString() {
            return "Config[name=" + name + ", cost=" + cost + "]";
        }
    }
}
