package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.Executor;

import dev.limiter.Decision;
import dev.limiter.spring.internal.Consequence;
import dev.limiter.spring.internal.CurrentServerExchange;
import dev.limiter.spring.internal.RateLimitResponse;
import dev.limiter.spring.internal.ServedRequest;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Limits a method returning a reactive type without blocking: the key is evaluated when the method
 * is called (a key that depends on the request, such as {@code #clientIp}, on each subscription,
 * since WebFlux keeps the exchange in the subscriber's context), and the method is called then too (assembling a publisher does nothing by itself), but
 * each subscription is decided first, through the reactive Redis API, and only then subscribes to
 * the method's publisher. A rejection is an error signal of
 * {@link dev.limiter.RateLimitExceededException}; with max-wait, the subscription waits on a timer,
 * no thread.
 * <p>
 * Any type Spring's {@link ReactiveAdapterRegistry} adapts is limited, through its
 * {@link ReactiveAdapter}: one that emits at most one value (a Reactor {@code Mono}, an RxJava
 * {@code Single}, {@code Maybe} or {@code Completable}) as a {@code Mono}, others (a {@code Flux},
 * a {@code Flowable}, a Kotlin {@code Flow}) as a {@code Flux}. A Kotlin {@code suspend} function
 * is one too: Spring's AOP calls it as a {@code Mono} (a {@code Flux} for a {@code Flow}) and
 * awaits what the interceptors return. Loaded only for such methods, so only with Reactor present.
 */
final class ReactiveCalls implements ReturnKind {

    /** Spring Web's reactive exchange, whose response gets the RateLimit header fields in WebFlux. */
    private static final boolean EXCHANGE_PRESENT = ClassUtils.isPresent("org.springframework.web.server.ServerWebExchange",
            ReactiveCalls.class.getClassLoader())
            && ClassUtils.isPresent("org.springframework.web.filter.reactive.ServerWebExchangeContextFilter",
                    ReactiveCalls.class.getClassLoader());

    private static final String FLOW_CLASS = "kotlinx.coroutines.flow.Flow";

    private final ReactiveAdapter adapter;

    /** Whether the type may emit more than one value, and so is decided as a {@code Flux}. */
    private final boolean multiValue;

    ReactiveCalls(ReactiveAdapter adapter) {
        this.adapter = adapter;
        this.multiValue = adapter.isMultiValue();
    }

    /** How a {@code suspend} function is limited: as the {@code Mono} (or {@code Flux}) Spring's AOP calls it as. */
    static ReactiveCalls forSuspendingFunction(Method method) {
        boolean flow = FLOW_CLASS.equals(new MethodParameter(method, -1).getParameterType().getName());
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(flow ? Flux.class : Mono.class);
        if (adapter == null) {
            throw new IllegalStateException("No reactive adapter for " + (flow ? "Flux" : "Mono") + " although Reactor is present");
        }
        return new ReactiveCalls(adapter);
    }

    @Override
    public @Nullable Object limit(InterceptedCall call) throws Throwable {
        Object result = call.proceed();
        if (result == null) {
            return null;
        }
        Publisher<?> source = adapter.toPublisher(result);
        // A servlet request is bound to this thread only now; a WebFlux exchange is in the subscriber's context.
        RateLimitResponse servletResponse = call.prepared().outcomes().responseOfThisCall();
        Publisher<?> limited = multiValue
                ? Flux.deferContextual((context) -> ready(call, context).flatMapMany((ready) -> ready.isEmpty() ? Flux.from(source)
                        : decision(ready.get()).flatMapMany((decided) -> Flux.from(
                                render(ready.get(), ready.get().follow(decided, response(call, context, servletResponse)), source)))))
                : Mono.deferContextual((context) -> ready(call, context).flatMap((ready) -> ready.isEmpty() ? Mono.from(source)
                        : decision(ready.get()).flatMap((decided) -> Mono.from(
                                render(ready.get(), ready.get().follow(decided, response(call, context, servletResponse)), source)))));
        return adapter.fromPublisher(limited);
    }

    /**
     * The call ready to decide: as it is, or, when its key depends on the request, evaluated for the
     * request of the subscription (the WebFlux exchange in its context, else the request known when
     * the method was called); empty when the call is not to be limited.
     */
    private static Mono<Optional<InterceptedCall>> ready(InterceptedCall call, ContextView context) {
        ServedRequest known = call.pending();
        if (known == null) {
            return Mono.just(Optional.of(call));
        }
        Mono<ServedRequest> request = EXCHANGE_PRESENT ? CurrentServerExchange.callRequest(context, known, call.method().clientIps(call.prepared()))
                : Mono.just(known);
        return request.map((found) -> Optional.ofNullable(call.evaluate(found)));
    }

    private static Mono<Decision> decision(InterceptedCall call) {
        return Mono.fromCompletionStage(call::decideAsync);
    }

    @Override
    public boolean emitsMany() {
        return multiValue;
    }

    @Override
    public boolean evaluatesPerSubscription() {
        return true;
    }

    @Override
    public Object failure(RuntimeException ex) {
        return adapter.fromPublisher(multiValue ? Flux.error(ex) : Mono.error(ex));
    }

    /** One subscription's consequence, as a publisher. */
    private Publisher<?> render(InterceptedCall call, Consequence consequence, Publisher<?> source) {
        Decision decision = consequence.decision();
        switch (consequence.step()) {
            case PROCEED:
                return refunding(call, consequence, source);
            case AWAIT_TURN:
                // The permits are reserved: the subscription waits for its turn on a timer.
                Mono<Long> turn = Mono.delay(consequence.turnIn());
                Publisher<?> proceeding = refunding(call, consequence, source);
                return multiValue ? turn.thenMany(proceeding) : turn.then(Mono.from(proceeding));
            case FAIL:
                return Mono.error(call.rejection(decision));
            case FALL_BACK:
                try {
                    Object fallback = call.fallback(decision);
                    return (fallback != null) ? adapter.toPublisher(fallback) : Mono.empty();
                }
                catch (Throwable ex) {
                    return Mono.error(ex);
                }
            default:
                throw new IllegalStateException("Unknown step " + consequence.step());
        }
    }

    /**
     * {@code source}, giving the subscription's permits back when it signals an error of refundOn (after
     * any values, for a multi-value type), and, for a single value, settling its actual cost when it
     * succeeds (settle). Neither waits on the thread signalling, which may be an event loop: the refund
     * runs on the application's executor, the settlement goes out asynchronously; the signals go on unchanged.
     */
    private Publisher<?> refunding(InterceptedCall call, Consequence consequence, Publisher<?> source) {
        if (!(call.method().refunds() || call.method().settles()) || !consequence.decision().allowed()) {
            return source;
        }
        Executor executor = call.prepared().asyncExecutor();
        if (multiValue) {
            return Flux.from(source).doOnError((failure) -> call.refundLaterIfDue(consequence, failure, executor));
        }
        // A Mono settles on its value, or on completing empty (a null #result); never twice, never after an error.
        return Mono.from(source).doOnError((failure) -> call.refundLaterIfDue(consequence, failure, executor))
            .doOnSuccess((value) -> call.settleAsync(consequence, value));
    }

    /** The response of the WebFlux exchange subscribing, else the servlet response of the call. */
    private static RateLimitResponse response(InterceptedCall call, ContextView context, RateLimitResponse servletResponse) {
        if (EXCHANGE_PRESENT && call.prepared().outcomes().setsHeaderFields()) {
            RateLimitResponse exchange = CurrentServerExchange.response(context);
            if (exchange != null) {
                return exchange;
            }
        }
        return servletResponse;
    }
}
