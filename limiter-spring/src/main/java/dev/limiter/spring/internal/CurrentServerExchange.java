package dev.limiter.spring.internal;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.Optional;

import dev.limiter.spring.web.ClientIpResolver;

import org.jspecify.annotations.Nullable;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The WebFlux exchange a subscription serves, found in the subscriber's context where
 * {@link ServerWebExchangeContextFilter} put it: its response, and its request as a {@link ServedRequest}. Loaded only when Reactor and Spring Web are present.
 */
public final class CurrentServerExchange {

    private CurrentServerExchange() {
    }

    /** The exchange's response, or null outside a WebFlux exchange (or without the filter). */
    public static @Nullable RateLimitResponse response(ContextView context) {
        return ServerWebExchangeContextFilter.getExchange(context).map(CurrentServerExchange::response).orElse(null);
    }

    /** The response of {@code exchange}, as where header fields go. */
    public static RateLimitResponse response(ServerWebExchange exchange) {
        ServerHttpResponse response = exchange.getResponse();
        return (policy, rateLimit) -> {
            if (!response.isCommitted()) {
                response.getHeaders().set(RateLimitHeaderFields.RATE_LIMIT_POLICY, policy);
                response.getHeaders().set(RateLimitHeaderFields.RATE_LIMIT, rateLimit);
            }
        };
    }

    /**
     * The request of the exchange subscribing, as a {@link ServedRequest}; {@code otherwise} outside
     * an exchange (or without the filter). The principal is Spring Security's authentication in the
     * subscriber's context, else the exchange's principal.
     */
    public static Mono<ServedRequest> callRequest(ContextView context, ServedRequest otherwise, @Nullable ClientIpResolver clientIps) {
        Optional<ServerWebExchange> found = ServerWebExchangeContextFilter.getExchange(context);
        if (found.isEmpty()) {
            return Mono.just(otherwise);
        }
        return callRequest(found.get(), clientIps);
    }

    /**
     * The request of {@code exchange}, as a {@link ServedRequest}; the principal is Spring Security's
     * authentication in the subscriber's context, else the exchange's principal.
     *
     * @param clientIps how the client's address is found; null when nothing reads it, which leaves it null
     */
    public static Mono<ServedRequest> callRequest(ServerWebExchange exchange, @Nullable ClientIpResolver clientIps) {
        ServerHttpRequest request = exchange.getRequest();
        String clientIp = (clientIps != null) ? clientIp(request, clientIps) : null;
        Mono<Principal> principal = exchange.getPrincipal();
        if (SecurityPrincipal.PRESENT) {
            principal = ReactiveSecurityPrincipal.ofSubscriber().switchIfEmpty(principal);
        }
        return principal.map((who) -> new ServedRequest(request, who, clientIp))
            .defaultIfEmpty(new ServedRequest(request, null, clientIp));
    }

    /**
     * {@code request} as a {@link ServedRequest} without its principal, for calls that do not read it:
     * found at once, with no subscription.
     *
     * @param clientIps how the client's address is found; null when nothing reads it, which leaves it null
     */
    public static ServedRequest servedRequest(ServerHttpRequest request, @Nullable ClientIpResolver clientIps) {
        return new ServedRequest(request, null, (clientIps != null) ? clientIp(request, clientIps) : null);
    }

    private static @Nullable String clientIp(ServerHttpRequest request, ClientIpResolver clientIps) {
        InetSocketAddress remote = request.getRemoteAddress();
        String peer = (remote == null) ? null
                : (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
        return clientIps.resolve(peer, request.getHeaders().getOrEmpty(clientIps.headerName()));
    }
}
