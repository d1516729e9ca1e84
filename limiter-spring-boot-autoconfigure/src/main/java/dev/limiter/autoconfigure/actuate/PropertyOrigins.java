package dev.limiter.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

/**
 * Where the properties of a limiter were set, as Spring Boot tracks it: the file and line of a YAML or
 * properties file, or the environment variable, shown by the {@code limiters} endpoint beside each value.
 */
final class PropertyOrigins {

    /** Where the properties come from; null when unknown. */
    private final @Nullable Environment environment;

    PropertyOrigins(@Nullable Environment environment) {
        this.environment = environment;
    }

    /**
     * Where each attribute set by a property was set (file and line of a YAML or properties file, or
     * the environment variable), as Spring Boot tracks it; attributes without a known origin are left out.
     */
    Map<String, String> of(Map<String, String> sources) {
        Map<String, String> origins = new LinkedHashMap<>();
        if (environment == null) {
            return origins;
        }
        Iterable<ConfigurationPropertySource> propertySources = ConfigurationPropertySources.get(environment);
        sources.forEach((attribute, source) -> {
            Origin origin = origin(propertySources, source);
            if (origin == null) {
                // A list of limits is set element by element: its first limit tells where.
                origin = origin(propertySources, source + "[0].limit");
            }
            if (origin != null) {
                origins.put(attribute, origin.toString());
            }
        });
        return origins;
    }

    private static @Nullable Origin origin(Iterable<ConfigurationPropertySource> propertySources, String property) {
        if (!property.startsWith("limiter.") || !ConfigurationPropertyName.isValid(property)) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
        for (ConfigurationPropertySource source : propertySources) {
            ConfigurationProperty found = source.getConfigurationProperty(name);
            if (found != null) {
                return found.getOrigin();
            }
        }
        return null;
    }
}
