package dev.limiter.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.limiter.Algorithm;
import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.RefundFailedException;
import dev.limiter.ResetFailedException;
import dev.limiter.Retuning;
import dev.limiter.autoconfigure.ConcurrencyLimiters;
import dev.limiter.autoconfigure.LimiterRetuner;
import dev.limiter.autoconfigure.LimiterSites;
import dev.limiter.autoconfigure.internal.DefinedLimiters;
import dev.limiter.spring.internal.limits.LimitNotation;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.internal.web.RateLimitRule;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.core.env.Environment;

/**
 * Actuator endpoint {@code limiters}: every limiter with its effective configuration (with plans,
 * each plan's limits) and where each value comes from ({@code /actuator/limiters},
 * {@code /actuator/limiters/{name}}), each concurrency limit with its slots in use here and a key's calls in
 * flight everywhere ({@code GET /actuator/limiters/{name}/{key}}; nothing to reset, refund or retune), and the quota of one key, read without taking a permit
 * ({@code GET /actuator/limiters/{name}/{key}}, {@code GET /actuator/limiters/{name}/{plan}/{key}}
 * for a plan, the key alone for its quota in every plan); resets a key, so that it starts idle again ({@code DELETE} on the same paths; without
 * a plan, in every plan); gives permits back to a key, such as those of a call that failed before doing
 * its work ({@code POST} on the same paths with a JSON body such as {@code {"permits": 1}}); and retunes
 * a limiter while the application runs ({@code POST /actuator/limiters/{name}} with a JSON body such as
 * {@code {"limit": 20, "window": "10s"}}). The key is the rest of the path, {@code /} included (see
 * {@code KeyPath}). Resets, refunds and retunes are refused unless limiter.endpoint.write-operations.enabled
 * is set, and a bad request is answered with a message ({@code LimitersEndpointRequests}).
 * Durations are ISO-8601 ({@code PT10S}). A value set by a property shows where it was set, such as
 * {@code class path resource [application.yml] - 12:16}.
 */
@Endpoint(id = "limiters")
public final class LimitersEndpoint {

    private final RateLimiterRegistry registry;

    private final DefinedLimiters definitions;

    /** The Redis backend; null for the memory backend. */
    private final @Nullable RedisRateLimiterFactory redis;

    private final PropertyOrigins origins;

    private final LimiterRetuner retuner;

    /** The rules of limiter.rules, in a web application that applies them; none otherwise. */
    private final Supplier<List<RateLimitRule>> rules;

    /** The concurrency limits of limiter.concurrency-limits; null for none. */
    private final @Nullable ConcurrencyLimiters concurrency;

    /** Where other modules use limiters: gateway routes, outgoing calls. */
    private final Supplier<List<LimiterSites>> sites;

    LimitersEndpoint(RateLimiterRegistry registry, DefinedLimiters definitions, @Nullable RedisRateLimiterFactory redis,
            @Nullable Environment environment, LimiterRetuner retuner, Supplier<List<RateLimitRule>> rules,
            @Nullable ConcurrencyLimiters concurrency, Supplier<List<LimiterSites>> sites) {
        this.registry = registry;
        this.definitions = definitions;
        this.redis = redis;
        this.origins = new PropertyOrigins(environment);
        this.retuner = retuner;
        this.rules = rules;
        this.concurrency = concurrency;
        this.sites = sites;
    }

    /** Every limiter, by name. */
    @ReadOperation
    public LimitersDescriptor limiters() {
        Map<String, LimiterDescriptor> limiters = new LinkedHashMap<>();
        registry.names().forEach((name) -> {
            LimiterDescriptor limiter = describe(name);
            if (limiter != null) {
                limiters.put(name, limiter);
            }
        });
        RedisDescriptor redisState = (redis != null)
                ? new RedisDescriptor(redis.isRedisAvailable(), redis.instances(), !redis.isInstanceCountConfigured()) : null;
        Map<String, ConcurrencyLimitDescriptor> concurrencyLimits = new LinkedHashMap<>();
        if (concurrency != null) {
            concurrency.limiters().forEach((limiter) -> concurrencyLimits.put(limiter.name(), describe(limiter)));
        }
        return new LimitersDescriptor((redis != null) ? "redis" : "memory", redisState, limiters, concurrencyLimits);
    }

    /**
     * One limiter ({@link LimiterDescriptor}), or one concurrency limit ({@link ConcurrencyLimitDescriptor});
     * 404 when there is neither of that name.
     */
    @ReadOperation
    public @Nullable NamedLimitDescriptor limiter(@Selector String name) {
        ConcurrencyLimiter slots = concurrencyLimit(name);
        return (slots != null) ? describe(slots) : describe(name);
    }

    private @Nullable ConcurrencyLimiter concurrencyLimit(String name) {
        return (concurrency != null) ? concurrency.find(name).orElse(null) : null;
    }

    private static ConcurrencyLimitDescriptor describe(ConcurrencyLimiter limiter) {
        ConcurrencyLimiterConfig config = limiter.config();
        FailurePolicy policy = config.onRedisFailure();
        return new ConcurrencyLimitDescriptor(config.limit(), config.lease().toString(), config.maxWait().toString(),
                (policy != null) ? policy.name().toLowerCase(Locale.ROOT) : null, limiter.inUse());
    }

    /**
     * The quota of a key, without taking a permit: {@code path} is the key, or for a limiter with plans
     * the plan then the key, or the key alone for its quota in every plan (each plan counts its keys
     * apart, and which plan a key's calls fall under is decided per call). 404 for an unknown limiter or plan.
     */
    @ReadOperation
    public @Nullable KeyQuotaDescriptor quota(@Selector String name, @Selector(match = Selector.Match.ALL_REMAINING) String... path) {
        ConcurrencyLimiter slots = concurrencyLimit(name);
        if (slots != null) {
            String key = String.join("/", path);
            if (key.isEmpty()) {
                return null;
            }
            long limit = slots.config().limit();
            try {
                int inFlight = slots.inFlight(key);
                return new InFlightDescriptor(name, key, limit, inFlight, Math.max(0, limit - inFlight), null);
            }
            catch (RuntimeException ex) {
                return new InFlightDescriptor(name, key, limit, null, null, "Calls in flight could not be read: " + ex.getMessage());
            }
        }
        KeyPath target = KeyPath.of(registry, name, path);
        if (target == null || target.key().isEmpty()) {
            return null;
        }
        String key = target.key();
        if (target.plan() == null && !registry.plans(name).isEmpty()) {
            Map<String, PlanQuotaDescriptor> plans = new TreeMap<>();
            registry.plans(name).forEach((plan, limiter) -> {
                Quota quota = limiter.quota(key);
                plans.put(plan, new PlanQuotaDescriptor(quota.limit(), quota.remaining(), quota.resetAfter().toString(), quota.source().tag()));
            });
            return new PlanQuotasDescriptor(name, key, plans, definitions.unlimitedPlans(name));
        }
        Quota quota = target.limiters().get(0).quota(key);
        return new QuotaDescriptor(name, target.plan(), key, quota.limit(), quota.remaining(), quota.resetAfter().toString(),
                quota.source().tag());
    }

    /**
     * Resets a key, so that it starts idle again, for every instance: {@code path} is the key, or for a
     * limiter with plans the plan then the key, or only the key to reset it in every plan. 404 for an
     * unknown limiter or plan; 503 when the key could not be reset (Redis unavailable), with the reason.
     */
    @DeleteOperation
    public WebEndpointResponse<ResetDescriptor> reset(@Selector String name, @Selector(match = Selector.Match.ALL_REMAINING) String... path) {
        KeyPath target = KeyPath.of(registry, name, path);
        if (target == null || target.key().isEmpty()) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        try {
            boolean hadState = false;
            for (RateLimiter limiter : target.limiters()) {
                hadState |= limiter.reset(target.key());
            }
            return new WebEndpointResponse<>(new ResetDescriptor(name, target.plan(), target.key(), true, hadState, null));
        }
        catch (ResetFailedException ex) {
            return new WebEndpointResponse<>(new ResetDescriptor(name, target.plan(), target.key(), false, null, ex.getMessage()),
                    WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    /**
     * Gives {@code permits} back to a key (see {@link RateLimiter#refund}), for every instance, and
     * answers the key's quota after it: {@code path} is the key, or for a limiter with plans the plan then
     * the key. 404 for an unknown limiter or plan; 400 for a limiter with plans without a plan (each plan
     * counts apart: name the plan the permits were taken under), or for permits missing or below 1, saying
     * what to send instead; 503 when nothing could be given back (Redis unavailable), with the reason.
     */
    @WriteOperation
    public WebEndpointResponse<RefundDescriptor> refund(@Selector String name, @Nullable Long permits,
            @Selector(match = Selector.Match.ALL_REMAINING) String... path) {
        KeyPath target = KeyPath.of(registry, name, path);
        if (target == null || target.key().isEmpty()) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        String key = target.key();
        if (target.limiters().size() != 1 || target.plan() == null && !registry.plans(name).isEmpty()) {
            return refused(name, null, key, permits, new RefusalDescriptor("limiter.limiters." + name + ".plans", null,
                    "Limiter '" + name + "' has plans, each counting its keys apart: permits go back to the plan they were taken under",
                    "POST /actuator/limiters/" + name + "/{plan}/" + key + " with {plan} one of " + registry.plans(name).keySet(), null));
        }
        return refund(name, target.plan(), target.limiters().get(0), key, permits);
    }

    private static WebEndpointResponse<RefundDescriptor> refund(String name, @Nullable String plan, RateLimiter limiter, String key,
            @Nullable Long permits) {
        if (permits == null || permits < 1) {
            String problem = (permits == null) ? "No permits given: the body says how many permits go back"
                    : "permits must be at least 1 but was " + permits;
            return refused(name, plan, key, permits, new RefusalDescriptor("permits", (permits != null) ? permits.toString() : null,
                    problem, "Send a JSON body such as {\"permits\": 1}, with the permits the call took and did not use", "permits"));
        }
        try {
            Quota quota = limiter.refund(key, permits);
            return new WebEndpointResponse<>(new RefundDescriptor(name, plan, key, true, permits, quota.limit(), quota.remaining(),
                    quota.resetAfter().toString(), quota.source().tag(), null, null));
        }
        catch (RefundFailedException ex) {
            return new WebEndpointResponse<>(new RefundDescriptor(name, plan, key, false, permits, null, null, null, null, ex.getMessage(),
                    null), WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    private static WebEndpointResponse<RefundDescriptor> refused(String name, @Nullable String plan, String key, @Nullable Long permits,
            RefusalDescriptor refusal) {
        return new WebEndpointResponse<>(new RefundDescriptor(name, plan, key, false, permits, null, null, null, null, null, refusal),
                WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    /**
     * Retunes limiter {@code name} with the values given, each optional: they are written into the
     * Environment above every other source (see {@link LimiterRetuner#retune(String, Map)}) and applied
     * at once, checked as at startup. Every value is text, as a web endpoint's body holds nothing else:
     * {@code limits} is several limits as {@code "<limit>/<window>"} or {@code "<limit>/<window>/<burst>"},
     * separated by commas ({@code "10/1s, 1000/1h"}); {@code leasePermits} and {@code leaseTtl} set the
     * lease (empty values stop leasing); {@code zone} and {@code anchorDay} those of calendar windows (an empty
     * anchor day is the first; a zone cannot be removed while running). 404 for an unknown limiter; 400 naming the property refused and why, the limits in force staying.
     */
    @WriteOperation
    public WebEndpointResponse<RetuneDescriptor> retune(@Selector String name, @Nullable String algorithm, @Nullable String limit,
            @Nullable String window, @Nullable String burst, @Nullable String limits, @Nullable String subWindows,
            @Nullable String maxWait, @Nullable String onRedisFailure, @Nullable String onRetune, @Nullable String leasePermits,
            @Nullable String leaseTtl, @Nullable String zone, @Nullable String anchorDay) {
        if (registry.find(name).isEmpty()) {
            if (!registry.plans(name).isEmpty()) {
                return new WebEndpointResponse<>(new RetuneDescriptor(name, false, null, registered(name), null, null,
                        new RefusalDescriptor("limiter.limiters." + name + ".plans", null, "Limiter '" + name + "' has plans, which are "
                                + "fixed at startup: each method picks among the plans it was given", "Restart the application to change them", null)),
                        WebEndpointResponse.STATUS_BAD_REQUEST);
            }
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("algorithm", algorithm);
        values.put("limit", limit);
        values.put("window", window);
        values.put("burst", burst);
        values.put("sub-windows", subWindows);
        values.put("max-wait", maxWait);
        values.put("on-redis-failure", onRedisFailure);
        values.put("on-retune", onRetune);
        values.put("zone", zone);
        values.put("anchor-day", anchorDay);
        if (leasePermits != null || leaseTtl != null) {
            Map<String, Object> lease = new LinkedHashMap<>();
            lease.put("permits", leasePermits);
            lease.put("ttl", leaseTtl);
            values.put("lease", lease);
        }
        try {
            if (limits != null) {
                values.put("limits", limits(name, limits));
            }
            Retuning retuning = retuner.retune(name, values);
            return new WebEndpointResponse<>(new RetuneDescriptor(name, retuning.changed(), retuning.previous().toString(),
                    registered(name), retuning.stateKept(), retuning.state(), null));
        }
        catch (LimiterConfigurationException ex) {
            return new WebEndpointResponse<>(new RetuneDescriptor(name, false, null, registered(name), null, null,
                    new RefusalDescriptor(ex.getWhere(), ex.getValue(), ex.getProblem(), ex.getAction(), field(name, ex.getWhere()))),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
    }

    /**
     * The limits of {@code text} in the limit notation, bursts allowed, as the retuner takes several limits;
     * the retuner checks the values.
     */
    private static List<Map<String, Object>> limits(String name, String text) {
        List<LimitNotation.Written> written = LimitNotation.limits(text, true);
        if (written == null) {
            throw new LimiterConfigurationException("limiter.limiters." + name + ".limits", "\"" + text + "\"", "Not a list of limits",
                    "Write each limit as \"<limit>/<window>\" or \"<limit>/<window>/<burst>\", separated by commas, "
                            + "such as \"10/1s, 1000/1h\"");
        }
        List<Map<String, Object>> limits = new ArrayList<>();
        for (LimitNotation.Written each : written) {
            Map<String, Object> limit = new LinkedHashMap<>();
            limit.put("limit", each.limit());
            limit.put("window", each.window());
            if (each.burst() != null) {
                limit.put("burst", each.burst());
            }
            limits.add(limit);
        }
        return limits;
    }

    /**
     * The field of a retune's body that sets {@code property} of limiter {@code name}, such as maxWait for
     * limiter.limiters.orders.max-wait; null for what no field sets (an annotation, say).
     */
    static @Nullable String field(String name, String property) {
        String prefix = "limiter.limiters." + name + ".";
        if (!property.startsWith(prefix)) {
            return null;
        }
        String attribute = property.substring(prefix.length()).replaceFirst("\\[.*", "");
        StringBuilder field = new StringBuilder();
        boolean upper = false;
        for (char c : attribute.toCharArray()) {
            if (c == '-' || c == '.') {
                upper = true;
            }
            else {
                field.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return field.toString();
    }

    /** The limiter of that name, with or without plans; null when there is none. */
    private @Nullable LimiterDescriptor describe(String name) {
        RateLimiter limiter = registry.find(name).orElse(null);
        Map<String, RateLimiter> plans = registry.plans(name);
        if (limiter == null && plans.isEmpty()) {
            return null;
        }
        // Plans share the limiter's algorithm and options, and differ in their limits.
        RateLimiterConfig config = (limiter != null) ? limiter.config() : plans.values().iterator().next().config();
        Map<String, String> sources = definitions.sources(name);
        Map<String, PlanDescriptor> described = null;
        if (limiter == null) {
            described = new TreeMap<>();
            for (Map.Entry<String, RateLimiter> plan : plans.entrySet()) {
                described.put(plan.getKey(), new PlanDescriptor(limits(plan.getValue().config()), false));
            }
            for (String plan : definitions.unlimitedPlans(name)) {
                described.put(plan, new PlanDescriptor(List.of(), true));
            }
        }
        RateLimiterConfig.Lease lease = config.lease();
        return new LimiterDescriptor(config.algorithm().configName(), (limiter != null) ? limits(config) : List.of(),
                (config.algorithm() == Algorithm.SLIDING_WINDOW) ? config.subWindows() : null,
                config.algorithm().isBucket() ? config.maxWait().toString() : null,
                (config.onRedisFailure() != null) ? config.onRedisFailure().name().toLowerCase(Locale.ROOT) : null,
                config.onRetune().name().toLowerCase(Locale.ROOT), definitions.shadow(name), sources, origins.of(sources), usedBy(name), described,
                (limiter == null) ? definitions.defaultPlan(name) : null, definitions.unlimitedKeyCount(name),
                (lease != null) ? new LeaseDescriptor(lease.permits(), lease.ttl().toString()) : null);
    }

    /**
     * The annotated methods using limiter {@code name}, then the rules deciding by it ("limiter.rules[0] GET /pages/**"), then the
     * routes of other modules (gateway routes, outgoing calls).
     */
    private List<String> usedBy(String name) {
        List<String> usedBy = new ArrayList<>(definitions.sites(name));
        for (RateLimitRule rule : rules.get()) {
            if (rule.limiter().equals(name)) {
                String methods = rule.methods().isEmpty() ? "" : String.join(",", rule.methods()).toUpperCase(Locale.ROOT) + " ";
                usedBy.add(rule.property() + " " + methods + String.join(", ", rule.paths()));
            }
        }
        for (LimiterSites others : sites.get()) {
            usedBy.addAll(others.sites().getOrDefault(name, List.of()));
        }
        return usedBy;
    }

    /** The limiter of that name, known to be registered (or to have plans). */
    private LimiterDescriptor registered(String name) {
        return Objects.requireNonNull(describe(name), () -> "Limiter '" + name + "' is registered");
    }

    private static List<LimitDescriptor> limits(RateLimiterConfig config) {
        return config.limits()
            .stream()
            .map((limit) -> (limit.calendar() == null)
                    ? new LimitDescriptor(limit.limit(), limit.window().toString(), config.algorithm().isBucket() ? limit.burst() : null)
                    : new LimitDescriptor(limit.limit(), switch (limit.calendar().unit()) {
                        case DAY -> "1d";
                        case WEEK -> "1w";
                        case MONTH -> "1mo";
                    }, null, limit.calendar().zone().getId(),
                            (limit.calendar().unit() == dev.limiter.CalendarWindow.Unit.MONTH) ? limit.calendar().anchorDay() : null))
            .toList();
    }
}
