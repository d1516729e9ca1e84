package dev.limiter.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.Retuning;
import dev.limiter.autoconfigure.LimiterDefinitions.Definition;
import dev.limiter.internal.LimiterArguments;
import dev.limiter.spring.LimiterConfigurationException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * Retunes the limiters while the application runs, from Spring's {@code Environment}: binds
 * {@code limiter.*} anew, checks every limiter as startup does, and then applies every change or
 * none. A value that startup would refuse is refused with the same message, naming the property, and
 * the limits in force stay. What can change is each limiter's algorithm, limits, windows, bursts,
 * sub-windows, max-wait, lease, on-redis-failure and on-retune, and limiters can be added; settings fixed at
 * startup (backend, key prefix, Redis connection, shadow mode, headers, deny cache, client address,
 * missing keys) are refused until a restart. Spring Cloud's {@code EnvironmentChangeEvent} (refresh,
 * {@code POST /actuator/env}) and the {@code limiters} endpoint's write operation call it; so may
 * applications. Thread-safe: retunes happen one at a time.
 */
public final class LimiterRetuner {

    /** Name of the property source, first in the Environment, holding the values written by {@link #retune(String, Map)}. */
    public static final String PROPERTY_SOURCE_NAME = "limiterRetune";

    private static final Log logger = LogFactory.getLog(LimiterRetuner.class);

    private static final String LIMITERS = "limiter.limiters.";

    /** What {@link #retune(String, Map)} may set under {@code limiter.limiters.<name>}. */
    private static final Set<String> RETUNABLE = Set.of("algorithm", "limit", "window", "burst", "limits", "sub-windows", "max-wait",
            "on-redis-failure", "on-retune", "lease", "lease.permits", "lease.ttl");

    /** The values of a lease. */
    private static final Set<String> LEASE_VALUES = Set.of("permits", "ttl");

    /** The values of each limit in {@code limits}. */
    private static final Set<String> LIMIT_VALUES = Set.of("limit", "window", "burst");

    private final LimiterDefinitions definitions;

    private final RateLimiterRegistry registry;

    private final ConfigurableEnvironment environment;

    LimiterRetuner(LimiterDefinitions definitions, RateLimiterRegistry registry, ConfigurableEnvironment environment) {
        this.definitions = definitions;
        this.registry = registry;
        this.environment = environment;
        // A copy of its own: Spring Cloud rebinds the properties bean in place, bad values included.
        definitions.use(bind(), Map.of());
    }

    /**
     * Applies the {@code limiter.*} properties the Environment holds now, after checking all of them:
     * every limiter whose configuration they change decides by the new one from its next call on, and
     * limiters they add are registered.
     *
     * @return what changed, one entry per retuned limiter; empty when nothing did
     * @throws LimiterConfigurationException naming the first property startup would refuse (nothing
     *     is applied then)
     */
    public synchronized List<Retuning> retune() {
        return apply(bind());
    }

    /**
     * Sets properties of limiter {@code name} (such as {@code limit}, {@code window}, {@code burst},
     * {@code algorithm}, {@code sub-windows}, {@code max-wait}, {@code on-redis-failure},
     * {@code on-retune}, {@code limits} as a list of maps of limit, window and burst, or {@code lease}
     * as a map of permits and ttl, an empty value of both turning leasing off) in the
     * Environment, above every other source, and applies them as {@link #retune()} does. Setting
     * {@code limit}, {@code window} or {@code burst} replaces configured {@code limits}, and the other
     * way round. Values stay in force until the application stops; a refused value is taken back.
     *
     * @param values the values by property name, relative to {@code limiter.limiters.<name>}
     *     (kebab-case or camelCase); a null value is ignored
     * @return what changed for that limiter
     * @throws IllegalArgumentException when no limiter has that name
     * @throws LimiterConfigurationException naming the property refused, and why
     */
    public synchronized Retuning retune(String name, Map<String, ?> values) {
        RateLimiter limiter = registry.get(name);
        Map<String, Object> written = properties(name, values);
        MapPropertySource source = propertySource();
        Map<String, Object> before = new LinkedHashMap<>(source.getSource());
        String prefix = LIMITERS + name + ".";
        if (written.containsKey(prefix + "limits") || written.containsKey(prefix + "limit")) {
            // New limits replace those written before, whether one or several.
            source.getSource().keySet().removeIf((key) -> key.startsWith(prefix + "limits"));
        }
        source.getSource().putAll(written);
        try {
            List<Retuning> changes = apply(bind());
            return changes.stream().filter((change) -> change.limiter().equals(name)).findFirst()
                .orElseGet(() -> new Retuning(name, limiter.config(), limiter.config()));
        }
        catch (RuntimeException ex) {
            source.getSource().clear();
            source.getSource().putAll(before);
            throw ex;
        }
    }

    /** The properties to write for {@code values}, checked to be retunable. */
    private static Map<String, Object> properties(String name, Map<String, ?> values) {
        String prefix = LIMITERS + name + ".";
        Map<String, Object> written = new LinkedHashMap<>();
        values.forEach((attribute, value) -> {
            String property = DataObjectPropertyName.toDashedForm(attribute);
            if (value == null) {
                return;
            }
            if (!RETUNABLE.contains(property)) {
                boolean known = property.equals("shadow");
                throw new LimiterConfigurationException(prefix + property, value,
                        known ? "Shadow mode is chosen per method at startup and cannot change while the application runs"
                                : "Not a value of a limiter that can be retuned",
                        known ? "Restart the application to change it" : "Set one of " + new TreeSet<>(RETUNABLE));
            }
            if (property.equals("limits")) {
                limits(prefix, value, written);
            }
            else if (property.equals("lease")) {
                lease(prefix, value, written);
            }
            else {
                written.put(prefix + property, String.valueOf(value));
            }
        });
        boolean single = written.keySet().stream().anyMatch((key) -> LIMIT_VALUES.stream().anyMatch((v) -> key.equals(prefix + v)));
        boolean several = written.keySet().stream().anyMatch((key) -> key.startsWith(prefix + "limits"));
        if (single && !several) {
            // An empty value hides the limits configured below this source: the single limit replaces them.
            written.put(prefix + "limits", "");
        }
        if (several) {
            LIMIT_VALUES.forEach((v) -> written.putIfAbsent(prefix + v, ""));
        }
        return written;
    }

    private static void limits(String prefix, Object value, Map<String, Object> written) {
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            throw new LimiterConfigurationException(prefix + "limits", value, "Several limits are a list of limit, window and burst",
                    "Give a list such as [{\"limit\": 10, \"window\": \"1s\"}, {\"limit\": 1000, \"window\": \"1h\"}]");
        }
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map<?, ?> limit)) {
                throw new LimiterConfigurationException(prefix + "limits[" + i + "]", list.get(i), "A limit is a limit, a window and a burst",
                        "Give a map such as {\"limit\": 10, \"window\": \"1s\"}");
            }
            for (Map.Entry<?, ?> entry : limit.entrySet()) {
                String property = DataObjectPropertyName.toDashedForm(String.valueOf(entry.getKey()));
                if (!LIMIT_VALUES.contains(property)) {
                    throw new LimiterConfigurationException(prefix + "limits[" + i + "]." + property, entry.getValue(),
                            "Not a value of a limit", "Set limit, window or burst");
                }
                if (entry.getValue() != null) {
                    written.put(prefix + "limits[" + i + "]." + property, String.valueOf(entry.getValue()));
                }
            }
        }
    }

    private static void lease(String prefix, Object value, Map<String, Object> written) {
        if (!(value instanceof Map<?, ?> lease)) {
            throw new LimiterConfigurationException(prefix + "lease", value, "A lease is permits and a ttl",
                    "Give a map such as {\"permits\": 10, \"ttl\": \"100ms\"}, or {\"permits\": \"\", \"ttl\": \"\"} to stop leasing");
        }
        for (Map.Entry<?, ?> entry : lease.entrySet()) {
            String property = DataObjectPropertyName.toDashedForm(String.valueOf(entry.getKey()));
            if (!LEASE_VALUES.contains(property)) {
                throw new LimiterConfigurationException(prefix + "lease." + property, entry.getValue(), "Not a value of a lease",
                        "Set permits or ttl");
            }
            if (entry.getValue() != null) {
                written.put(prefix + "lease." + property, String.valueOf(entry.getValue()));
            }
        }
    }

    private MapPropertySource propertySource() {
        PropertySource<?> existing = environment.getPropertySources().get(PROPERTY_SOURCE_NAME);
        if (existing instanceof MapPropertySource source) {
            return source;
        }
        MapPropertySource source = new MapPropertySource(PROPERTY_SOURCE_NAME, new LinkedHashMap<>());
        environment.getPropertySources().addFirst(source);
        return source;
    }

    /** {@code limiter.*} as the Environment has it now, bound as at startup; a value that does not bind is refused. */
    private LimiterProperties bind() {
        try {
            return Binder.get(environment).bindOrCreate("limiter", LimiterProperties.class);
        }
        catch (BindException ex) {
            LimiterConfigurationException duration = LimiterBindFailureAnalyzer.durationFailure(ex);
            if (duration != null) {
                throw duration;
            }
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            Object value = (ex.getProperty() != null) ? ex.getProperty().getValue() : "(not bound)";
            throw new LimiterConfigurationException(ex.getName().toString(), value,
                    "Cannot be bound to " + ex.getTarget().getType() + ": " + cause.getMessage(), "Correct the value");
        }
    }

    /** Checks {@code next} as startup would, then applies all of it or nothing. */
    private List<Retuning> apply(LimiterProperties next) {
        LimiterProperties current = definitions.properties();
        checkFixed(current, next);
        Map<String, Definition> defined;
        try {
            definitions.checkShadow(next);
            defined = definitions.define(next);
        }
        catch (MutuallyExclusiveConfigurationPropertiesException ex) {
            throw new LimiterConfigurationException(String.join(", ", ex.getConfiguredNames()), "set together", String.valueOf(ex.getMessage()),
                    "Keep either limits or limit, window and burst");
        }
        Map<String, Definition> added = new LinkedHashMap<>();
        defined.forEach((name, definition) -> {
            if (registry.find(name).isEmpty()) {
                try {
                    added.put(LimiterArguments.checkName(name), definition);
                }
                catch (IllegalArgumentException ex) {
                    throw new LimiterConfigurationException(LIMITERS + name, name, String.valueOf(ex.getMessage()), "Rename the limiter");
                }
            }
        });
        List<Retuning> changes = new ArrayList<>();
        try {
            for (Map.Entry<String, Definition> entry : defined.entrySet()) {
                RateLimiter limiter = registry.find(entry.getKey()).orElse(null);
                if (limiter != null) {
                    Retuning retuning = retune(limiter, entry.getValue());
                    if (retuning.changed()) {
                        changes.add(retuning);
                    }
                }
            }
            added.forEach(definitions::register);
        }
        catch (RuntimeException ex) {
            // A limiter that cannot be retuned (one an application made itself): the others go back.
            for (int i = changes.size() - 1; i >= 0; i--) {
                registry.get(changes.get(i).limiter()).retune(changes.get(i).previous());
            }
            throw ex;
        }
        definitions.use(next, defined);
        for (Retuning change : changes) {
            logger.info("Limiter '" + change.limiter() + "' retuned from " + change.previous() + " to " + change.current() + ": "
                    + change.state());
        }
        added.forEach((name, definition) -> logger.info("Limiter '" + name + "' added while running: " + definition.config()));
        return changes;
    }

    private static Retuning retune(RateLimiter limiter, Definition definition) {
        try {
            return limiter.retune(definition.config());
        }
        catch (UnsupportedOperationException ex) {
            throw new LimiterConfigurationException(LIMITERS + limiter.name(), definition.config(),
                    "Limiter '" + limiter.name() + "' cannot be retuned while the application runs: " + ex.getMessage(),
                    "Restart the application to apply it");
        }
    }

    /** Refuses a change of what is fixed at startup, naming the first such property. */
    private static void checkFixed(LimiterProperties current, LimiterProperties next) {
        Map<String, Function<LimiterProperties, Object>> fixed = new LinkedHashMap<>();
        fixed.put("limiter.backend", LimiterProperties::getBackend);
        fixed.put("limiter.key-prefix", LimiterProperties::getKeyPrefix);
        fixed.put("limiter.on-redis-failure", LimiterProperties::getOnRedisFailure);
        fixed.put("limiter.on-missing-key", LimiterProperties::getOnMissingKey);
        fixed.put("limiter.memory.max-keys", (p) -> p.getMemory().getMaxKeys());
        fixed.put("limiter.redis.timeout", (p) -> p.getRedis().getTimeout());
        fixed.put("limiter.redis.connect-timeout", (p) -> p.getRedis().getConnectTimeout());
        fixed.put("limiter.redis.outage-after", (p) -> p.getRedis().getOutageAfter());
        fixed.put("limiter.redis.probe-interval", (p) -> p.getRedis().getProbeInterval());
        fixed.put("limiter.redis.heartbeat-interval", (p) -> p.getRedis().getHeartbeatInterval());
        fixed.put("limiter.redis.expected-instances", (p) -> p.getRedis().getExpectedInstances());
        fixed.put("limiter.headers.enabled", (p) -> p.getHeaders().isEnabled());
        fixed.put("limiter.local-deny-cache.enabled", (p) -> p.getLocalDenyCache().isEnabled());
        fixed.put("limiter.local-deny-cache.max-keys", (p) -> p.getLocalDenyCache().getMaxKeys());
        fixed.put("limiter.client-ip.trusted-proxies", (p) -> p.getClientIp().getTrustedProxies());
        fixed.put("limiter.client-ip.ipv6-prefix-length", (p) -> p.getClientIp().getIpv6PrefixLength());
        fixed.put("limiter.client-ip.forwarded-header", (p) -> p.getClientIp().getForwardedHeader());
        fixed.put("limiter.rules", LimiterRetuner::rules);
        fixed.put("limiter.rule-filter-order", LimiterProperties::getRuleFilterOrder);
        Set<String> names = new TreeSet<>(current.getLimiters().keySet());
        names.addAll(next.getLimiters().keySet());
        for (String name : names) {
            fixed.put(LIMITERS + name + ".plans", (p) -> plans(p.getLimiters().get(name)));
        }
        fixed.forEach((property, value) -> {
            Object was = value.apply(current);
            Object now = value.apply(next);
            if (!Objects.equals(was, now)) {
                throw new LimiterConfigurationException(property, now, "Fixed at startup: it cannot change while the application runs",
                        "Restart the application to apply it, or set it back to " + was);
            }
        });
    }

    /** What the rules say, comparable: they are read once, when the filters are made. */
    private static List<List<Object>> rules(LimiterProperties properties) {
        return properties.getRules().stream()
            .map((rule) -> Arrays.<Object>asList(rule.getPaths(), rule.getMethods(), rule.getWhen(), rule.getUnless(), rule.getLimiter(),
                    rule.getKey(), rule.getCost()))
            .toList();
    }

    /**
     * What a limiter's plans say, comparable: each method picks among the plans registered at startup,
     * so plans, their limits and what picks them are fixed; null for a limiter without plans.
     */
    private static @Nullable List<Object> plans(LimiterProperties.@Nullable Limiter limiter) {
        if (limiter == null || (limiter.getPlans().isEmpty() && limiter.getUnlimitedKeys().isEmpty() && limiter.getPlan() == null
                && limiter.getPlanResolver() == null && limiter.getDefaultPlan() == null)) {
            return null;
        }
        Map<String, Object> plans = new TreeMap<>();
        limiter.getPlans().forEach((name, plan) -> plans.put(name, (plan != null) ? Arrays.<Object>asList(plan.getLimit(), plan.getWindow(),
                plan.getBurst(), plan.getLimits().stream().map((l) -> Arrays.<Object>asList(l.getLimit(), l.getWindow(), l.getBurst())).toList(),
                plan.isUnlimited()) : null));
        return Arrays.<Object>asList(plans, limiter.getPlan(), limiter.getPlanResolver(), limiter.getDefaultPlan(), limiter.getUnlimitedKeys());
    }
}
