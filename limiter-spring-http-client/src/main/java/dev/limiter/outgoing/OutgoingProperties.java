package dev.limiter.outgoing;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Outgoing calls under a limiter, {@code limiter.outgoing}: a list of routes, the first that takes a call decides it. */
@ConfigurationProperties("limiter")
public class OutgoingProperties {

    /**
     * Routes of outgoing calls (RestClient, RestTemplate, WebClient), each by host or url pattern, with
     * the limiter that decides its calls and their key. The first route that takes a call decides it.
     */
    private List<Route> outgoing = new ArrayList<>();

    public List<Route> getOutgoing() {
        return outgoing;
    }

    public void setOutgoing(List<Route> outgoing) {
        this.outgoing = outgoing;
    }

    /** One route of outgoing calls. */
    public static class Route {

        /** Host whose calls the route takes, such as api.partner.com, or *.partner.com for its subdomains. */
        private @Nullable String host;

        /** URL pattern whose calls the route takes instead of a host: scheme, host, optional port and an Ant-style path, such as https://api.partner.com/v2/**. */
        private @Nullable String url;

        /** Limiter of limiter.limiters deciding the route's calls; its max-wait bounds how long a call waits. */
        private @Nullable String limiter;

        /** SpEL over #request (method, uri, host, path, headers) giving the key, such as #request.headers['X-Api-Key']; one key for all calls when unset. */
        private @Nullable String key;

        public @Nullable String getHost() {
            return host;
        }

        public void setHost(@Nullable String host) {
            this.host = host;
        }

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getLimiter() {
            return limiter;
        }

        public void setLimiter(@Nullable String limiter) {
            this.limiter = limiter;
        }

        public @Nullable String getKey() {
            return key;
        }

        public void setKey(@Nullable String key) {
            this.key = key;
        }
    }
}
