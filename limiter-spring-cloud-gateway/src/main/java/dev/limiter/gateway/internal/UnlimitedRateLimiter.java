package dev.limiter.gateway.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.gateway.LimiterRateLimiter;

import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import reactor.core.publisher.Mono;

/**
 * The bean {@code limiter} while {@code limiter.enabled} is false: routes naming it
 * ({@code rate-limiter: "#{@limiter}"}) still load, and it admits every request, with no header field
 * and no call to Redis, as {@code @RateLimited} methods then run unlimited.
 */
public final class UnlimitedRateLimiter implements RateLimiter<LimiterRateLimiter.Config> {

    private static final Mono<Response> ADMITTED = Mono.just(new Response(true, Map.of()));

    private final Map<String, LimiterRateLimiter.Config> config = new ConcurrentHashMap<>();

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        return ADMITTED;
    }

    @Override
    public Map<String, LimiterRateLimiter.Config> getConfig() {
        return config;
    }

    @Override
    public Class<LimiterRateLimiter.Config> getConfigClass() {
        return LimiterRateLimiter.Config.class;
    }

    @Override
    public LimiterRateLimiter.Config newConfig() {
        return new LimiterRateLimiter.Config();
    }

    @Override
    public String toString() {
        return "UnlimitedRateLimiter (limiter.enabled=false)";
    }
}
