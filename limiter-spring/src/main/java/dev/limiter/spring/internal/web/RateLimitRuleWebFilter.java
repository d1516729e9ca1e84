package dev.limiter.spring.internal.web;

import java.util.List;
import java.util.function.Supplier;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.spring.web.RateLimitExceededHandler;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.reactive.DispatchExceptionHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
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

    /** Answers a rejection when WebFlux's exception handling does not. */
    private static final RateLimitExceededHandler PLAIN = new RateLimitExceededHandler();

    private final RateLimitRules rules;

    /** WebFlux's exception handlers ({@code @ExceptionHandler} methods), found with the first rejection. */
    private final Supplier<List<DispatchExceptionHandler>> exceptionHandlers;

    /** WebFlux's result handlers, found with the first rejection. */
    private final Supplier<List<HandlerResultHandler>> resultHandlers;

    private int order = DEFAULT_ORDER;

    /**
     * @param rules the rules to apply
     * @param handlerAdapters WebFlux's handler adapters, those among them that handle exceptions
     *     ({@link DispatchExceptionHandler}: {@code @ExceptionHandler} methods) answer rejections
     * @param resultHandlers WebFlux's result handlers, writing the answer
     */
    public RateLimitRuleWebFilter(RateLimitRules rules, ObjectProvider<HandlerAdapter> handlerAdapters,
            ObjectProvider<HandlerResultHandler> resultHandlers) {
        this.rules = rules;
        this.exceptionHandlers = SingletonSupplier.of(() -> handlerAdapters.orderedStream()
            .filter(DispatchExceptionHandler.class::isInstance)
            .map(DispatchExceptionHandler.class::cast)
            .toList());
        this.resultHandlers = SingletonSupplier.of(() -> resultHandlers.orderedStream().toList());
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
            .onErrorResume((ex) -> ex instanceof RateLimitExceededException || ex instanceof MissingRateLimitKeyException,
                    (ex) -> reject(exchange, ex).then(Mono.just(false)))
            .flatMap((admitted) -> admitted ? chain.filter(exchange) : Mono.empty());
    }

    /** Answers a rejection as DispatcherHandler answers an error raised before a handler is found. */
    private Mono<Void> reject(ServerWebExchange exchange, Throwable ex) {
        Mono<HandlerResult> answer = Mono.error(ex);
        for (DispatchExceptionHandler handler : exceptionHandlers.get()) {
            answer = answer.onErrorResume((error) -> handler.handleError(exchange, error));
        }
        return answer.flatMap((result) -> {
            HandlerResultHandler writer = resultHandler(result);
            return (writer != null) ? writer.handleResult(exchange, result) : plain(exchange, ex);
        }).onErrorResume((unanswered) -> unanswered == ex, (unanswered) -> plain(exchange, ex));
    }

    private @Nullable HandlerResultHandler resultHandler(HandlerResult result) {
        for (HandlerResultHandler handler : resultHandlers.get()) {
            if (handler.supports(result)) {
                return handler;
            }
        }
        return null;
    }

    /** Nothing answered the rejection (no WebFlux handlers): the status and header fields, without a body. */
    private static Mono<Void> plain(ServerWebExchange exchange, Throwable ex) {
        ServerHttpResponse response = exchange.getResponse();
        if (!response.isCommitted()) {
            ResponseEntity<ProblemDetail> plain = (ex instanceof RateLimitExceededException rejected)
                    ? PLAIN.handleRateLimitExceeded(rejected) : PLAIN.handleMissingKey((MissingRateLimitKeyException) ex);
            response.setStatusCode(plain.getStatusCode());
            response.getHeaders().addAll(plain.getHeaders());
        }
        return response.setComplete();
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
