package dev.limiter.spring.internal.web;

import java.util.List;
import java.util.function.Supplier;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.spring.web.RateLimitExceededHandler;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.reactive.DispatchExceptionHandler;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.HandlerResultHandler;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Answers a request that a rule rejected before any handler ran, as WebFlux answers an error of a
 * handler: through the {@code @ExceptionHandler} methods of the application's {@code @ControllerAdvice}
 * beans, so by {@link RateLimitExceededHandler} (429, {@code Retry-After}, RateLimit fields, problem
 * detail; 400 for a missing key) unless the application's own handler answers it. Used by
 * {@link RateLimitRuleWebFilter} and by other Limiter modules that apply rules outside it (a gateway's filters).
 */
public final class WebFluxRejections {

    /** Answers a rejection when WebFlux's exception handling does not. */
    private static final RateLimitExceededHandler PLAIN = new RateLimitExceededHandler();

    /** WebFlux's exception handlers ({@code @ExceptionHandler} methods), found with the first rejection. */
    private final Supplier<List<DispatchExceptionHandler>> exceptionHandlers;

    /** WebFlux's result handlers, found with the first rejection. */
    private final Supplier<List<HandlerResultHandler>> resultHandlers;

    /**
     * @param handlerAdapters WebFlux's handler adapters, those among them that handle exceptions
     *     ({@link DispatchExceptionHandler}: {@code @ExceptionHandler} methods) answer rejections
     * @param resultHandlers WebFlux's result handlers, writing the answer
     */
    public WebFluxRejections(ObjectProvider<HandlerAdapter> handlerAdapters, ObjectProvider<HandlerResultHandler> resultHandlers) {
        this.exceptionHandlers = SingletonSupplier.of(() -> handlerAdapters.orderedStream()
            .filter(DispatchExceptionHandler.class::isInstance)
            .map(DispatchExceptionHandler.class::cast)
            .toList());
        this.resultHandlers = SingletonSupplier.of(() -> resultHandlers.orderedStream().toList());
    }

    /** Whether {@code ex} is what the rules signal a rejected request with, which {@link #answer} answers. */
    public static boolean isRejection(Throwable ex) {
        return ex instanceof RateLimitExceededException || ex instanceof MissingRateLimitKeyException;
    }

    /**
     * Answers a rejection as DispatcherHandler answers an error raised before a handler is found.
     *
     * @param ex a {@link RateLimitExceededException} or {@link MissingRateLimitKeyException}
     */
    public Mono<Void> answer(ServerWebExchange exchange, Throwable ex) {
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
}
