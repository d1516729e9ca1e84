package dev.limiter.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.Retuning;
import dev.limiter.internal.LimiterArguments;
import dev.limiter.spring.LimiterConfigurationException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;

/**
 * Retunes the limiters while the application runs, from Spring's {@code Environment}: binds
 * {@code limiter.*} anew, checks every limiter as startup does, and then applies every change or
 * none. A value that startup would refuse is refused with the same message, naming the property, and
 * the limits in force stay. What can change is each limiter's algorithm, limits, windows, bursts,
 * sub-windows, max-wait, lease, on-redis-failure, on-retune, and its calendar windows' zone and anchor
 * day, and limiters can be added; settings fixed at startup (backend, key prefix, Redis connection,
 * shadow mode, headers, deny cache, client address, missing keys) are refused until a restart.
 * Spring Cloud's {@code EnvironmentChangeEvent} (refresh, {@code POST /actuator/env}) and the
 * {@code limiters} endpoint's write operation call it; so may applications. Thread-safe: retunes happen one at a time.
 */
public final class LimiterRetuner {

    /** Name of the property source, first in the Environment, holding the values written by {@link #retune(String, Map)}. */
    public static final String PROPERTY_SOURCE_NAME = "limiterRetune";

    private static final Log logger = LogFactory.getLog(LimiterRetuner.class);

    private static final String LIMITERS = "limiter.limiters.";

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
     * as a map of permits and ttl, an empty value of both turning leasing off, or {@code zone} and
     * {@code anchor-day} of calendar windows, an empty anchor day removing it) in the Environment, above every other source, and applies them as {@link #retune()} does. Setting
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
        Map<String, Object> written = RetuneValues.properties(name, values);
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
        RetuneChecks.checkFixed(current, next);
        Map<String, LimiterDefinition> defined;
        try {
            RetuneChecks.checkShadow(definitions, next);
            defined = RetuneChecks.define(definitions, next);
        }
        catch (MutuallyExclusiveConfigurationPropertiesException ex) {
            throw new LimiterConfigurationException(String.join(", ", ex.getConfiguredNames()), "set together", String.valueOf(ex.getMessage()),
                    "Keep either limits or limit, window and burst");
        }
        Map<String, LimiterDefinition> added = new LinkedHashMap<>();
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
            for (Map.Entry<String, LimiterDefinition> entry : defined.entrySet()) {
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

    private static Retuning retune(RateLimiter limiter, LimiterDefinition definition) {
        try {
            return limiter.retune(definition.config());
        }
        catch (UnsupportedOperationException ex) {
            throw new LimiterConfigurationException(LIMITERS + limiter.name(), definition.config(),
                    "Limiter '" + limiter.name() + "' cannot be retuned while the application runs: " + ex.getMessage(),
                    "Restart the application to apply it");
        }
    }
}
