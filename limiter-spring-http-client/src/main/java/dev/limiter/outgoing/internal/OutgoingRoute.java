package dev.limiter.outgoing.internal;

import java.util.Locale;
import java.util.regex.Pattern;

import dev.limiter.outgoing.OutgoingRequest;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.internal.EvaluationContexts;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.util.AntPathMatcher;

/**
 * One entry of {@code limiter.outgoing}: which requests it takes (a host, or a URL pattern), the limiter
 * that decides them and the key, checked when built.
 *
 * @param property where it is configured, such as {@code limiter.outgoing[0]}, for messages
 */
public record OutgoingRoute(String property, String limiter, @Nullable String scheme, String host, int port, @Nullable String pathPattern,
        @Nullable Expression key) {

    private static final AntPathMatcher PATHS = new AntPathMatcher();

    /** An IPv6 address as a URI writes it, in brackets: {@link java.net.URI#getHost()} gives it so. */
    private static final Pattern IPV6_LITERAL = Pattern.compile("\\[[0-9A-Fa-f:.]+]");

    /**
     * A route from its configured values; exactly one of {@code host} and {@code url}.
     *
     * @param host {@code api.partner.com}, or {@code *.partner.com} for its subdomains
     * @param url {@code https://api.partner.com/v2/**}: scheme, host (which may start with {@code *.}),
     *     optional port, and an Ant-style path pattern
     * @param key SpEL over {@code #request} ({@link OutgoingRequest}); null or blank for one key for every call
     * @throws LimiterConfigurationException naming the property of the first mistake
     */
    public static OutgoingRoute of(String property, @Nullable String host, @Nullable String url, @Nullable String limiter, @Nullable String key) {
        if (limiter == null || limiter.isBlank()) {
            throw new LimiterConfigurationException(property + ".limiter", limiter, "An outgoing route needs the limiter that decides its calls",
                    "Name a limiter configured under limiter.limiters, such as limiter: partner-api");
        }
        boolean hasHost = host != null && !host.isBlank();
        boolean hasUrl = url != null && !url.isBlank();
        if (hasHost == hasUrl) {
            throw new LimiterConfigurationException(property + (hasHost ? ".url" : ".host"), hasHost ? url : host,
                    "An outgoing route takes its calls by host or by url pattern, exactly one of them",
                    "Set host: api.partner.com, or url: https://api.partner.com/v2/**");
        }
        Expression expression = null;
        if (key != null && !key.isBlank()) {
            try {
                expression = EvaluationContexts.parser(OutgoingRoute.class.getClassLoader()).parseExpression(key);
            }
            catch (ParseException ex) {
                throw new LimiterConfigurationException(property + ".key", key, "The key expression does not parse: " + ex.getMessage(),
                        "Write SpEL over #request, such as \"'company'\" or \"#request.headers['X-Api-Key']\"");
            }
        }
        if (hasHost) {
            return new OutgoingRoute(property, limiter.trim(), null, checkHost(property + ".host", host.trim()), -1, null, expression);
        }
        return fromUrl(property + ".url", limiter.trim(), url.trim(), expression);
    }

    private static OutgoingRoute fromUrl(String property, String limiter, String url, @Nullable Expression key) {
        int schemeEnd = url.indexOf("://");
        if (schemeEnd <= 0) {
            throw new LimiterConfigurationException(property, url, "A url pattern starts with its scheme and host",
                    "Write it as https://api.partner.com/v2/**");
        }
        String scheme = url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        String rest = url.substring(schemeEnd + 3);
        int slash = rest.indexOf('/');
        String authority = (slash >= 0) ? rest.substring(0, slash) : rest;
        String path = (slash >= 0) ? rest.substring(slash) : null;
        int port = -1;
        // A port follows the host's last colon, but not one inside an IPv6 literal such as [::1].
        int colon = authority.lastIndexOf(':');
        if (colon >= 0 && colon > authority.lastIndexOf(']')) {
            try {
                port = Integer.parseInt(authority.substring(colon + 1));
            }
            catch (NumberFormatException ex) {
                throw new LimiterConfigurationException(property, url, "The port is no number", "Write it as https://api.partner.com:8443/v2/**");
            }
            authority = authority.substring(0, colon);
        }
        return new OutgoingRoute(property, limiter, scheme, checkHost(property, authority), port, path, key);
    }

    private static String checkHost(String property, String host) {
        if (IPV6_LITERAL.matcher(host).matches()) {
            return host.toLowerCase(Locale.ROOT);
        }
        String bare = host.startsWith("*.") ? host.substring(2) : host;
        if (bare.isEmpty() || bare.contains("*") || bare.contains("/") || bare.contains(":")) {
            throw new LimiterConfigurationException(property, host, "A host is a name such as api.partner.com, *.partner.com for its subdomains, or an address such as 10.0.0.7 or [::1]",
                    "Write the host alone, without scheme, port or path; use url: for those");
        }
        return host.toLowerCase(Locale.ROOT);
    }

    /** Whether this route takes {@code request}. */
    public boolean matches(OutgoingRequest request) {
        String requestHost = request.getHost();
        if (requestHost == null) {
            return false;
        }
        if (host.startsWith("*.") ? !requestHost.endsWith(host.substring(1)) : !requestHost.equals(host)) {
            return false;
        }
        if (scheme != null && !scheme.equalsIgnoreCase(request.getUri().getScheme())) {
            return false;
        }
        if (port >= 0 && port != port(request)) {
            return false;
        }
        return pathPattern == null || PATHS.match(pathPattern, request.getPath().isEmpty() ? "/" : request.getPath());
    }

    private static int port(OutgoingRequest request) {
        int port = request.getUri().getPort();
        if (port >= 0) {
            return port;
        }
        return "https".equalsIgnoreCase(request.getUri().getScheme()) ? 443 : 80;
    }

    /** The key of {@code request}: "" without a key expression, or when it gives null. */
    public String keyOf(OutgoingRequest request) {
        if (key == null) {
            return "";
        }
        StandardEvaluationContext context = EvaluationContexts.sharingLookups(new StandardEvaluationContext());
        context.setVariable("request", request);
        Object value = key.getValue(context);
        return (value != null) ? value.toString() : "";
    }
}
