package dev.limiter.autoconfigure.actuate;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.ResetFailedException;
import dev.limiter.Retuning;
import dev.limiter.autoconfigure.LimiterDefinitions;
import dev.limiter.autoconfigure.LimiterRetuner;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Actuator endpoint {@code limiters}: every limiter with its effective configuration and where each
 * value comes from ({@code /actuator/limiters}, {@code /actuator/limiters/{name}}), and the quota of
 * one key, read without taking a permit ({@code GET /actuator/limiters/{name}/{key}}); resets a key,
 * so that it starts idle again ({@code DELETE /actuator/limiters/{name}/{key}}); and retunes a limiter
 * while the application runs ({@code POST /actuator/limiters/{name}} with a JSON body such as
 * {@code {"limit": 20, "window": "10s"}}). Durations are ISO-8601 ({@code PT10S}).
 */
@Endpoint(id = "limiters")
public final class LimitersEndpoint {

    private final RateLimiterRegistry registry;

    private final LimiterDefinitions definitions;

    /** The Redis backend; null for the memory backend. */
    private final RedisRateLimiterFactory redis;

    private final LimiterRetuner retuner;

    LimitersEndpoint(RateLimiterRegistry registry, LimiterDefinitions definitions, RedisRateLimiterFactory redis, LimiterRetuner retuner) {
        this.registry = registry;
        this.definitions = definitions;
        this.redis = redis;
        this.retuner = retuner;
    }

    /** Every limiter, by name. */
    @ReadOperation
    public LimitersDescriptor limiters() {
        Map<String, LimiterDescriptor> limiters = new LinkedHashMap<>();
        registry.limiters()
            .stream()
            .sorted(Comparator.comparing(RateLimiter::name))
            .forEach((limiter) -> limiters.put(limiter.name(), describe(limiter)));
        RedisDescriptor redisState = (redis != null)
                ? new RedisDescriptor(redis.isRedisAvailable(), redis.instances(), !redis.isInstanceCountConfigured()) : null;
        return new LimitersDescriptor((redis != null) ? "redis" : "memory", redisState, limiters);
    }

    /** One limiter; 404 when there is none of that name. */
    @ReadOperation
    public LimiterDescriptor limiter(@Selector String name) {
        return registry.find(name).map(this::describe).orElse(null);
    }

    /** The quota of {@code key} under limiter {@code name}, without taking a permit; 404 for an unknown limiter. */
    @ReadOperation
    public QuotaDescriptor quota(@Selector String name, @Selector String key) {
        return registry.find(name).map((limiter) -> {
            Quota quota = limiter.quota(key);
            return new QuotaDescriptor(name, key, quota.limit(), quota.remaining(), quota.resetAfter().toString(),
                    quota.source().tag());
        }).orElse(null);
    }

    /**
     * Resets {@code key} under limiter {@code name}: it starts idle again, for every instance. 404 for an
     * unknown limiter; 503 when the key could not be reset (Redis unavailable), with the reason.
     */
    @DeleteOperation
    public WebEndpointResponse<ResetDescriptor> reset(@Selector String name, @Selector String key) {
        RateLimiter limiter = registry.find(name).orElse(null);
        if (limiter == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        try {
            return new WebEndpointResponse<>(new ResetDescriptor(name, key, true, limiter.reset(key), null));
        }
        catch (ResetFailedException ex) {
            return new WebEndpointResponse<>(new ResetDescriptor(name, key, false, null, ex.getMessage()),
                    WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    /**
     * Retunes limiter {@code name} with the values given, each optional: they are written into the
     * Environment above every other source (see {@link LimiterRetuner#retune(String, Map)}) and applied
     * at once, checked as at startup. {@code limits} is a list of objects of limit, window and burst.
     * 404 for an unknown limiter; 400 naming the property refused and why, the limits in force staying.
     */
    @WriteOperation
    public WebEndpointResponse<RetuneDescriptor> retune(@Selector String name, @Nullable String algorithm, @Nullable String limit,
            @Nullable String window, @Nullable String burst, @Nullable List<Map<String, Object>> limits, @Nullable String subWindows,
            @Nullable String maxWait, @Nullable String onRedisFailure, @Nullable String onRetune) {
        if (registry.find(name).isEmpty()) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("algorithm", algorithm);
        values.put("limit", limit);
        values.put("window", window);
        values.put("burst", burst);
        values.put("limits", limits);
        values.put("sub-windows", subWindows);
        values.put("max-wait", maxWait);
        values.put("on-redis-failure", onRedisFailure);
        values.put("on-retune", onRetune);
        try {
            Retuning retuning = retuner.retune(name, values);
            return new WebEndpointResponse<>(new RetuneDescriptor(name, retuning.changed(), retuning.previous().toString(),
                    describe(registry.get(name)), retuning.stateKept(), retuning.state(), null));
        }
        catch (LimiterConfigurationException ex) {
            return new WebEndpointResponse<>(new RetuneDescriptor(name, false, null, describe(registry.get(name)), null, null,
                    new RefusalDescriptor(ex.getWhere(), ex.getValue(), ex.getProblem(), ex.getAction())),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
    }

    private LimiterDescriptor describe(RateLimiter limiter) {
        RateLimiterConfig config = limiter.config();
        List<LimitDescriptor> limits = config.limits()
            .stream()
            .map((limit) -> new LimitDescriptor(limit.limit(), limit.window().toString(),
                    config.algorithm().isBucket() ? limit.burst() : null))
            .toList();
        return new LimiterDescriptor(config.algorithm().configName(), limits,
                (config.algorithm() == Algorithm.SLIDING_WINDOW) ? config.subWindows() : null,
                config.algorithm().isBucket() ? config.maxWait().toString() : null,
                (config.onRedisFailure() != null) ? config.onRedisFailure().name().toLowerCase(Locale.ROOT) : null,
                config.onRetune().name().toLowerCase(Locale.ROOT), definitions.shadow(limiter.name()), definitions.sources(limiter.name()),
                definitions.sites(limiter.name()));
    }

    /**
     * All limiters, and the backend they keep their state in ({@code redis} or {@code memory}); for
     * Redis, its state.
     */
    public record LimitersDescriptor(String backend, RedisDescriptor redis, Map<String, LimiterDescriptor> limiters) {
    }

    /**
     * Whether Redis decides now (false while the failure policy does), and how many instances share
     * each limit: counted by their heartbeats in Redis, or configured.
     */
    public record RedisDescriptor(boolean available, int instances, boolean instancesCounted) {
    }

    /**
     * A limiter's effective configuration; {@code sources} says, per attribute, which property or
     * annotation set it (or "default"); {@code usedBy} lists the annotated methods.
     */
    public record LimiterDescriptor(String algorithm, List<LimitDescriptor> limits, Integer subWindows, String maxWait,
            String onRedisFailure, String onRetune, boolean shadow, Map<String, String> sources, List<String> usedBy) {
    }

    /**
     * What a retune did: whether the configuration changed, the one before (as text), the limiter now,
     * and what became of the keys' state ({@code state} says why keys start fresh, such as a change of
     * windows with on-retune keep); when refused, why, and {@code current} is the limiter still in force.
     */
    public record RetuneDescriptor(String limiter, boolean changed, String previous, LimiterDescriptor current, Boolean stateKept,
            String state, RefusalDescriptor refused) {
    }

    /** A refused value: the property, the value, what is wrong with it and what to do, as startup reports it. */
    public record RefusalDescriptor(String property, String value, String problem, String action) {
    }

    /** One limit: permits per window, and the burst of a bucket algorithm. */
    public record LimitDescriptor(long limit, String window, Long burst) {
    }

    /**
     * What a reset did: whether the key was reset, and whether it had state to clear (false: it was
     * idle already); when not reset, why.
     */
    public record ResetDescriptor(String limiter, String key, boolean reset, Boolean hadState, String error) {
    }

    /** The quota of one key; {@code source} is what answered (redis, memory, local-fallback, failure-policy). */
    public record QuotaDescriptor(String limiter, String key, long limit, long remaining, String resetAfter, String source) {
    }
}
