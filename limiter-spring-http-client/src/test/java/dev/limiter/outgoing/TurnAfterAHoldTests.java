package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.outgoing.internal.MemoryHolds;
import dev.limiter.outgoing.internal.OutgoingCalls;
import dev.limiter.outgoing.internal.OutgoingObserver;
import dev.limiter.outgoing.internal.OutgoingRoute;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

/**
 * A call that waited out a hold may then wait its turn up to max-wait, as the limiter reserved it, and gives
 * nothing back: calls deciding in between keep turns of their own. Cutting the turn to what the hold left of
 * max-wait gave the reserved permit back while other calls had reserved later turns, which moved GCRA's
 * schedule back under theirs: the next call got a turn already taken (two calls at one instant, another turn
 * left empty), as SharedQuotaTests saw with 16 threads per instance waking together at a hold's end.
 */
class TurnAfterAHoldTests {

    private final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START);

    @Test
    void aCallThatWaitedOutAHoldKeepsItsTurnAndLaterCallsGetTurnsOfTheirOwn() {
        RateLimiterRegistry registry = new RateLimiterRegistry(InMemoryRateLimiterFactory.builder().clock(clock).build());
        // A turn every 2 s, reserved up to 10 s ahead.
        registry.register("partner", RateLimiterConfig.builder(Algorithm.GCRA).limit(new LimitSpec(50, Duration.ofSeconds(100), 1))
            .maxWait(Duration.ofSeconds(10)).build());
        OutgoingCalls calls = new OutgoingCalls(List.of(OutgoingRoute.of("limiter.outgoing[0]", "api.partner.com", null, "partner", null)),
                registry, new MemoryHolds(clock), OutgoingObserver.NONE);

        // The upstream holds the key for 8 s; a call waits it out, 2 s of its max-wait left.
        HttpHeaders retryAfter = new HttpHeaders();
        retryAfter.add("Retry-After", "8");
        calls.call(request()).answered(429, retryAfter);
        OutgoingCalls.Call held = calls.call(request());
        HoldingLimiter.Answer hold = decide(held);
        assertThat(hold.held()).isTrue();
        assertThat(held.afterHold(hold.decision().retryAfter())).isEqualTo(Duration.ofSeconds(8));
        clock.advance(Duration.ofSeconds(8));

        // At the hold's end, others decide first: turns 0 and 2 s. The held call's turn is 4 s, more than the 2 s left.
        assertThat(turn(calls.call(request()))).isEqualTo(Duration.ZERO);
        assertThat(turn(calls.call(request()))).isEqualTo(Duration.ofSeconds(2));
        Decision heldDecision = decide(held).decision();
        // Another call reserves the turn after it before the held call learns its own.
        assertThat(turn(calls.call(request()))).isEqualTo(Duration.ofSeconds(6));
        assertThat(held.afterDecision(heldDecision)).as("the held call's turn").isEqualTo(Duration.ofSeconds(4));
        // The next call's turn is after all of these, not one of them.
        assertThat(turn(calls.call(request()))).isEqualTo(Duration.ofSeconds(8));
    }

    private static HoldingLimiter.Answer decide(OutgoingCalls.Call call) {
        return call.decideAsync().toCompletableFuture().join();
    }

    private static Duration turn(OutgoingCalls.Call call) {
        HoldingLimiter.Answer answer = decide(call);
        assertThat(answer.held()).isFalse();
        return call.afterDecision(answer.decision());
    }

    private static OutgoingRequest request() {
        return new OutgoingRequest(HttpMethod.GET, URI.create("https://api.partner.com/v1/orders"), new HttpHeaders());
    }
}
