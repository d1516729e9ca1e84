package dev.limiter.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.limiter.spring.LimiterConfigurationException;

import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

/**
 * The values of a retune of one limiter ({@link LimiterRetuner#retune(String, java.util.Map)}) as the
 * properties to write under {@code limiter.limiters.<name>}: each checked to be one a retune may set, a
 * list of limits or a lease spelt out element by element, and a single limit replacing several or the
 * other way round.
 */
final class RetuneValues {

    private static final String LIMITERS = "limiter.limiters.";

    /** What {@link LimiterRetuner#retune(String, Map)} may set under {@code limiter.limiters.<name>}. */
    private static final Set<String> RETUNABLE = Set.of("algorithm", "limit", "window", "burst", "limits", "sub-windows", "max-wait",
            "on-redis-failure", "on-retune", "lease", "lease.permits", "lease.ttl", "zone", "anchor-day");

    /** The values of a lease. */
    private static final Set<String> LEASE_VALUES = Set.of("permits", "ttl");

    /** The values of each limit in {@code limits}. */
    private static final Set<String> LIMIT_VALUES = Set.of("limit", "window", "burst");

    private RetuneValues() {
    }

    /** The properties to write for {@code values}, checked to be retunable. */
    static Map<String, Object> properties(String name, Map<String, ?> values) {
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
}
