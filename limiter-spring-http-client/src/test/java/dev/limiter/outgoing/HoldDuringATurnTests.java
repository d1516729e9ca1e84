package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.outgoing.internal.MemoryHolds;
import dev.limiter.outgoing.internal.OutgoingCalls;
import dev.limiter.outgoing.internal.OutgoingObserver;
import dev.limiter.outgoing.internal.OutgoingRoute;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.publisher.Mono;

/**
 * A hold that comes while calls wait for their turns: the turns that fall inside it are spent, and their
 * calls, once the hold is over, are decided again and go out on turns of their own. Going out at the hold's
 * end on the turns they had bunched them there, on top of the turns the limiter gives from then on: more than
 * the upstream's limit in its next window (SharedQuotaTests saw two calls at one instant, then a 429).
 * <p>
 * A turn every 2 s (GCRA, 50 per 100 s, burst 1), max-wait 10 s. Three calls decide at 0: turns 0, 2 and 4.
 * At 1 the upstream asks every instance to hold the key for 4 s, until 5. The calls of turns 2 and 4 wait
 * the hold out and are decided again at 5: turns 6 and 8. Calls go out at least 2 s apart throughout.
 */
class HoldDuringATurnTests {

    private static final long SECOND = 1_000_000L;

    private static final long START = VirtualClock.EPOCH_ALIGNED_START;

    @Test
    void blockingCallsWhoseTurnsFellInAHoldAreDecidedAgainAfterIt() throws InterruptedException {
        assertThat(wentOut((time, calls, sent) -> {
            try {
                calls.call(request()).admit(time);
                sent.accept(time.nowMicros());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        })).containsExactly(0L, 6L, 8L);
    }

    @Test
    void reactiveCallsWhoseTurnsFellInAHoldAreDecidedAgainAfterIt() throws InterruptedException {
        assertThat(wentOut((time, calls, sent) -> {
            LimiterExchangeFilterFunction filter = new LimiterExchangeFilterFunction(calls, time::delay);
            ClientRequest request = ClientRequest.create(HttpMethod.GET, URI.create("https://api.partner.com/v1/orders")).build();
            filter.filter(request, (out) -> {
                sent.accept(time.nowMicros());
                return Mono.just(ClientResponse.create(HttpStatus.OK).build());
            }).block();
        })).containsExactly(0L, 6L, 8L);
    }

    /** The seconds after the start at which three calls went out, the hold of 4 s coming at 1. */
    private static List<Long> wentOut(Caller caller) throws InterruptedException {
        VirtualTime time = new VirtualTime(START, 4);
        RateLimiterRegistry registry = new RateLimiterRegistry(InMemoryRateLimiterFactory.builder().clock(time).build());
        registry.register("partner", RateLimiterConfig.builder(Algorithm.GCRA).limit(new LimitSpec(50, Duration.ofSeconds(100), 1))
            .maxWait(Duration.ofSeconds(10)).build());
        OutgoingCalls calls = new OutgoingCalls(List.of(OutgoingRoute.of("limiter.outgoing[0]", "api.partner.com", null, "partner", null)),
                registry, new MemoryHolds(time), OutgoingObserver.NONE);
        List<Long> sent = Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            workers.add(new Thread(() -> {
                try {
                    caller.call(time, calls, (at) -> sent.add((at - START) / SECOND));
                }
                finally {
                    time.leave();
                }
            }));
        }
        workers.add(new Thread(() -> {
            try {
                time.sleep(Duration.ofSeconds(1));
                HttpHeaders retryAfter = new HttpHeaders();
                retryAfter.add("Retry-After", "4");
                calls.call(request()).answered(429, retryAfter);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                time.leave();
            }
        }));
        workers.forEach(Thread::start);
        time.run();
        for (Thread worker : workers) {
            worker.join();
        }
        return sent.stream().sorted().toList();
    }

    private static OutgoingRequest request() {
        return new OutgoingRequest(HttpMethod.GET, URI.create("https://api.partner.com/v1/orders"), new HttpHeaders());
    }

    @FunctionalInterface
    private interface Caller {

        void call(VirtualTime time, OutgoingCalls calls, Consumer<Long> sent);
    }
}
