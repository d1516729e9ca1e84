package dev.limiter.spring.internal.web;

import dev.limiter.spring.web.RateLimitExceededHandler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResultHandler;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * WebFlux filter applying {@link RateLimitRules} ({@code limiter.rules}) to each exchange, without
 * blocking, before WebFlux handles it: a request a rule rejects never reaches its handler. Its
 * rejection is answered as WebFlux answers an error of a handler, through the
 * {@code @ExceptionHandler} methods of the application's {@code @ControllerAdvice} beans, so as for
 * a {@code @RateLimited} method by {@link RateLimitExceededHandler} (429, {@code Retry-After},
 * RateLimit fields, problem detail; 400 for a missing key) unless an {@code @ExceptionHandler} of the
 * application answers it.
 * <p>
 * Ordered by default just after Spring Security's {@code WebFilterChainProxy} ({@link #DEFAULT_ORDER}),
 * so that {@code #principal} is the authenticated user and requests that security turns away take no
 * permits.
 */
public class RateLimitRuleWebFilter implements WebFilter, Ordered {

    /** Default order: after Spring Security's web filter, which is ordered at -100. */
    public static final int DEFAULT_ORDER = RateLimitRuleFilter.DEFAULT_ORDER;

    private final RateLimitRules rules;

    private final WebFluxRejections rejections;

    private int order = DEFAULT_ORDER;

    /**
     * @param rules the rules to apply
     * @param handlerAdapters WebFlux's handler adapters, those among them that handle exceptions
     *     ({@link org.springframework.web.reactive.DispatchExceptionHandler}: {@code @ExceptionHandler} methods) answer rejections
     * @param resultHandlers WebFlux's result handlers, writing the answer
     */
    public RateLimitRuleWebFilter(RateLimitRules rules, ObjectProvider<HandlerAdapter> handlerAdapters,
            ObjectProvider<HandlerResultHandler> resultHandlers) {
        this.rules = rules;
        this.rejections = new WebFluxRejections(handlerAdapters, resultHandlers);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (rules.isEmpty()) {
            return chain.filter(exchange);
        }
        return Mono.defer(() -> {
            Mono<Void> admitted = rules.admit(exchange);
            // Decided at once and allowed (the memory backend, the deny cache, a lease): straight on, with no operator.
            return (admitted == RateLimitRules.ADMITTED) ? chain.filter(exchange) : admitThen(exchange, chain, admitted);
        });
    }

    private Mono<Void> admitThen(ServerWebExchange exchange, WebFilterChain chain, Mono<Void> admission) {
        // Only the rules' own errors are answered here: the chain's go on as they are.
        return admission
            .then(Mono.just(true))
            .onErrorResume(WebFluxRejections::isRejection, (ex) -> rejections.answer(exchange, ex).then(Mono.just(false)))
            .flatMap((admitted) -> admitted ? chain.filter(exchange) : Mono.empty());
    }

    @Override
    public int getOrder() {
        return order;
    }

    /** Sets the order among the web filters; {@link #DEFAULT_ORDER} by default. */
    public void setOrder(int order) {
        this.order = order;
    }
}
