package dev.limiter.outgoing;

import java.time.Duration;
import java.util.function.Function;

import dev.limiter.outgoing.internal.OutgoingCalls;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Limits the calls of a {@code WebClient} by {@code limiter.outgoing}, without blocking a thread: each
 * subscription of a call of a route waits on a timer for a hold the upstream asked for and for its permit
 * (decided through the limiter's non-blocking path, which reads the hold too), up to the limiter's max-wait, else signals
 * {@link OutgoingCallRejectedException} without sending; its answer may hold the key for every instance.
 * Holds kept in Redis are read and written on Reactor's bounded-elastic scheduler. Calls no route takes
 * go out as they are. Auto-configured into every {@code WebClient.Builder} Spring Boot makes;
 * {@code builder.filter(filter)} adds it to others.
 */
public final class LimiterExchangeFilterFunction implements ExchangeFilterFunction {

    private final OutgoingCalls calls;

    private final Function<Duration, Mono<?>> delay;

    public LimiterExchangeFilterFunction(OutgoingCalls calls) {
        this(calls, Mono::delay);
    }

    /** For tests that drive time: {@code delay} gives the timer a subscription waits on. */
    public LimiterExchangeFilterFunction(OutgoingCalls calls, Function<Duration, Mono<?>> delay) {
        this.calls = calls;
        this.delay = delay;
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        return Mono.defer(() -> {
            OutgoingCalls.Call call = calls.call(new OutgoingRequest(request.method(), request.url(), request.headers()));
            if (call == null) {
                return next.exchange(request);
            }
            return admit(call)
                .then(Mono.defer(() -> {
                    call.proceeded();
                    return next.exchange(request);
                }))
                .flatMap((response) -> answered(call, response));
        });
    }

    /**
     * The call's permit: one decision (one round trip), a held key waited out on a timer and decided
     * again, the call's turn waited for, then a look for a hold that came meanwhile: one is waited out
     * and the call decided again, its turn spent.
     */
    private Mono<Boolean> admit(OutgoingCalls.Call call) {
        return Mono.defer(() -> Mono.fromCompletionStage(call.decideAsync())).flatMap((answer) -> {
            if (answer.held()) {
                return delay.apply(call.afterHold(answer.decision().retryAfter())).then(admit(call));
            }
            Duration turn = call.afterDecision(answer.decision());
            if (turn.isZero()) {
                return Mono.just(true);
            }
            return delay.apply(turn).then(holdRemaining(call)).map(call::afterTurn)
                .flatMap((hold) -> hold.isZero() ? Mono.just(true) : delay.apply(hold).then(admit(call)));
        });
    }

    private static Mono<Duration> holdRemaining(OutgoingCalls.Call call) {
        Mono<Duration> remaining = Mono.fromSupplier(call::holdRemaining);
        return call.holdsBlock() ? remaining.subscribeOn(Schedulers.boundedElastic()) : remaining;
    }

    private static Mono<ClientResponse> answered(OutgoingCalls.Call call, ClientResponse response) {
        Mono<ClientResponse> learnt = Mono.fromSupplier(() -> {
            call.answered(response.statusCode().value(), response.headers().asHttpHeaders());
            return response;
        });
        return call.holdsBlock() ? learnt.subscribeOn(Schedulers.boundedElastic()) : learnt;
    }
}
