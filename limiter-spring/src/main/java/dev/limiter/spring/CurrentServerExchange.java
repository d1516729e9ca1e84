package dev.limiter.spring;

import org.jspecify.annotations.Nullable;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import reactor.util.context.ContextView;

/**
 * The response of the WebFlux exchange a subscription serves, found in the subscriber's context
 * where {@link ServerWebExchangeContextFilter} put it. Loaded only when Reactor and Spring Web are present.
 */
final class CurrentServerExchange {

    private CurrentServerExchange() {
    }

    /** The exchange's response, or null outside a WebFlux exchange (or without the filter). */
    static @Nullable RateLimitResponse response(ContextView context) {
        return ServerWebExchangeContextFilter.getExchange(context).map((exchange) -> {
            ServerHttpResponse response = exchange.getResponse();
            return (RateLimitResponse) (policy, rateLimit) -> {
                if (!response.isCommitted()) {
                    response.getHeaders().set(RateLimitHeaderFields.RATE_LIMIT_POLICY, policy);
                    response.getHeaders().set(RateLimitHeaderFields.RATE_LIMIT, rateLimit);
                }
            };
        }).orElse(null);
    }
}
