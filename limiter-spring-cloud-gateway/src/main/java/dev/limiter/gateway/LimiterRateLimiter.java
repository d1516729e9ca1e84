package dev.limiter.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.gateway.internal.GatewayLimits;
import dev.limiter.gateway.internal.RouteLimit;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud Gateway {@code RateLimiter} deciding through Limiter, for routes limited by the gateway's
 * own {@code RequestRateLimiter} filter and its {@code KeyResolver} beans: registered as the bean
 * {@code limiter}, routes name it with {@code rate-limiter: "#{@limiter}"}. Each route is decided by the
 * limiter named by its filter argument {@code limiter.name} (in {@code default-filters} too, which the
 * gateway applies to each route), else by the limiter named as the route's id, one of
 * {@code limiter.limiters}; the argument {@code limiter.cost} sets the permits each request takes (1 by
 * default). Java route definitions name the limiter and cost with {@link #using(String, long)}. Decisions
 * go through Limiter's reactive path, without blocking: algorithms, several limits, max-wait, shadow mode,
 * the failure policy, the deny cache and metrics are the limiter's; answers carry the RateLimit header
 * fields, {@code Retry-After} on a rejection, and the {@code X-RateLimit-*} fields of
 * {@code RedisRateLimiter} as configured ({@link LimiterGatewayProperties}).
 */
public class LimiterRateLimiter extends AbstractRateLimiter<LimiterRateLimiter.Config> {

    /** The prefix of this rate limiter's filter arguments: {@code limiter.name}, {@code limiter.cost}. */
    public static final String CONFIGURATION_PROPERTY_NAME = "limiter";

    private final GatewayLimits limits;

    /** What a route without arguments of its own uses (set by {@link #using}); null for its route id's limiter. */
    private final @Nullable Config defaults;

    /** Each route's limit, by route id and limiter, made on its first request. */
    private final Map<String, RouteLimit> routes = new ConcurrentHashMap<>();

    LimiterRateLimiter(GatewayLimits limits, @Nullable ConfigurationService configurationService) {
        this(limits, configurationService, null);
    }

    private LimiterRateLimiter(GatewayLimits limits, @Nullable ConfigurationService configurationService, @Nullable Config defaults) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.limits = limits;
        this.defaults = defaults;
    }

    /**
     * A rate limiter for Java route definitions, deciding each route by limiter {@code limiter}, each
     * request taking one permit:
     * {@code filters(f -> f.requestRateLimiter(c -> c.setRateLimiter(limiter.using("orders")).setKeyResolver(userKeyResolver)))}.
     *
     * @throws LimiterConfigurationException when there is no such limiter, or it has plans
     */
    public LimiterRateLimiter using(String limiter) {
        return using(limiter, 1);
    }

    /**
     * A rate limiter for Java route definitions, deciding each route by limiter {@code limiter}, each
     * request taking {@code cost} permits (RedisRateLimiter's requestedTokens), as the arguments
     * {@code limiter.name} and {@code limiter.cost} do for routes in YAML.
     *
     * @throws LimiterConfigurationException when there is no such limiter, or it has plans
     * @throws IllegalArgumentException for a cost below 1
     */
    public LimiterRateLimiter using(String limiter, long cost) {
        String where = "LimiterRateLimiter.using(\"" + limiter + "\", " + cost + ")";
        if (limiter == null || limiter.isBlank()) {
            throw new LimiterConfigurationException(where, "\"\"", "A route's rate limiter needs the limiter that decides it",
                    "Name a limiter configured under limiter.limiters, such as limiter.using(\"orders\")");
        }
        Config config = new Config().setName(limiter.trim()).setCost(cost);
        // Mistakes surface where the route is defined, not on its first request.
        limits.checkRouteLimiter(limiter.trim(), where, "limiter");
        return new LimiterRateLimiter(limits, null, config);
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config config = config(routeId);
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

    /**
     * The route's arguments, else those of {@link #using}. The gateway binds the arguments of a
     * RequestRateLimiter in default-filters for each route it applies to, under the route's id.
     */
    private @Nullable Config config(String routeId) {
        Config config = getConfig().get(routeId);
        return (config != null) ? config : defaults;
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
