package dev.limiter.outgoing;

import java.net.URI;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

/**
 * An outgoing request as the key expressions of {@code limiter.outgoing} see it, {@code #request}, the
 * same for RestClient, RestTemplate and WebClient: {@code #request.headers['X-Api-Key']} (the header's
 * first value), {@code #request.host}, {@code #request.path}, {@code #request.method}, {@code #request.uri}.
 */
public final class OutgoingRequest {

    private final HttpMethod method;

    private final URI uri;

    private final HttpHeaders headers;

    public OutgoingRequest(HttpMethod method, URI uri, HttpHeaders headers) {
        this.method = method;
        this.uri = uri;
        this.headers = headers;
    }

    public HttpMethod getMethod() {
        return method;
    }

    public URI getUri() {
        return uri;
    }

    public HttpHeaders getHeaders() {
        return headers;
    }

    /** The host called, lower case; null for a URI without one. */
    public @Nullable String getHost() {
        String host = uri.getHost();
        return (host != null) ? host.toLowerCase(java.util.Locale.ROOT) : null;
    }

    /** The path called, "" for none. */
    public String getPath() {
        String path = uri.getRawPath();
        return (path != null) ? path : "";
    }

    @Override
    public String toString() {
        return method + " " + uri;
    }
}
