package dev.limiter.spring;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Limits a method returning a Reactor {@code Mono} or {@code Flux} without blocking: the key is
 * evaluated when the method is called, and the method is called then too (assembling a publisher
 * does nothing by itself), but each subscription is decided first, through the reactive Redis API,
 * and only then subscribes to the method's publisher. A rejection is an error signal of
 * {@link RateLimitExceededException}; with max-wait, the subscription waits on a timer, no thread.
 * Loaded only for methods returning Reactor types.
 */
final class ReactorCalls {

    /** Spring Web's reactive exchange, whose response gets the RateLimit header fields in WebFlux. */
    private static final boolean EXCHANGE_PRESENT = ClassUtils.isPresent("org.springframework.web.server.ServerWebExchange",
            ReactorCalls.class.getClassLoader())
            && ClassUtils.isPresent("org.springframework.web.filter.reactive.ServerWebExchangeContextFilter",
                    ReactorCalls.class.getClassLoader());

    private ReactorCalls() {
    }

    static @Nullable Object limit(MethodInvocation invocation, LimitedMethod limited, RateLimitedMethods prepared) throws Throwable {
        boolean flux = limited.returns() == ReturnKind.FLUX;
        Object target = invocation.getThis();
        Object[] args = invocation.getArguments();
        DecisionOutcomes outcomes = prepared.outcomes();
        LimitedMethod.Call call;
        try {
            call = outcomes.evaluate(limited, args, target);
        }
        catch (RuntimeException ex) {
            return flux ? Flux.error(ex) : Mono.error(ex);
        }
        if (call == null) {
            return invocation.proceed();
        }
        String key = call.key();
        long cost = call.cost();
        Publisher<?> source = (Publisher<?>) invocation.proceed();
        if (source == null) {
            return null;
        }
        // A servlet request is bound to this thread only now; a WebFlux exchange is in the subscriber's context.
        RateLimitResponse servletResponse = outcomes.responseOfThisCall();
        Mono<Decision> decision = Mono.fromCompletionStage(() -> outcomes.decideAsync(limited, key, cost));
        if (flux) {
            return Flux.deferContextual((context) -> decision.flatMapMany((decided) -> Flux.from(
                    proceed(limited, outcomes, key, decided, response(outcomes, context, servletResponse), target, args, source, true))));
        }
        return Mono.deferContextual((context) -> decision.flatMap((decided) -> Mono.from(
                proceed(limited, outcomes, key, decided, response(outcomes, context, servletResponse), target, args, source, false))));
    }

    /** What becomes of one subscription once decided. */
    private static Publisher<?> proceed(LimitedMethod limited, DecisionOutcomes outcomes, String key, Decision decision,
            RateLimitResponse response, @Nullable Object target, @Nullable Object[] args, Publisher<?> source, boolean flux) {
        Outcome outcome = limited.outcomeOf(decision);
        outcomes.record(limited, key, decision, outcome, response);
        switch (outcome) {
            case REJECTED:
                return Mono.error(new RateLimitExceededException(limited.limiter().name(), decision));
            case FALLBACK:
                try {
                    Object fallback = limited.fallback(target, args, decision);
                    return (fallback != null) ? (Publisher<?>) fallback : Mono.empty();
                }
                catch (Throwable ex) {
                    return Mono.error(ex);
                }
            case ALLOWED:
                if (!decision.waitFor().isZero() && !limited.shadow()) {
                    // The permits are reserved: the subscription waits for its turn on a timer.
                    Mono<Long> turn = Mono.delay(decision.waitFor());
                    return flux ? turn.thenMany(source) : turn.then(Mono.from(source));
                }
                return source;
            default:
                // Shadow mode changes nothing for the subscriber.
                return source;
        }
    }

    /** The response of the WebFlux exchange subscribing, else the servlet response of the call. */
    private static RateLimitResponse response(DecisionOutcomes outcomes, ContextView context, RateLimitResponse servletResponse) {
        if (EXCHANGE_PRESENT && outcomes.setsHeaderFields()) {
            RateLimitResponse exchange = CurrentServerExchange.response(context);
            if (exchange != null) {
                return exchange;
            }
        }
        return servletResponse;
    }
}
