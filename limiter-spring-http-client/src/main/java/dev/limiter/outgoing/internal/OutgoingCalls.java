package dev.limiter.outgoing.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.Decision;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.outgoing.OutgoingCallRejectedException;
import dev.limiter.outgoing.OutgoingRequest;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

/**
 * The steps every client's interceptor takes for an outgoing call of a route: take a permit from the
 * route's limiter unless the upstream asked to hold the key, in one decision (one Redis round trip),
 * waiting out a hold (up to the limiter's max-wait) and then deciding again, and waiting for the call's
 * turn (up to max-wait, as the limiter reserves it); look for a hold again after waiting its turn (up to
 * what is left of max-wait after both); and learn a new hold from the answer. A call that cannot go out
 * within those waits fails at once with {@link OutgoingCallRejectedException}: it never waits for nothing.
 */
public final class OutgoingCalls {

    private final List<OutgoingRoute> routes;

    private final RateLimiterRegistry registry;

    private final Holds holds;

    private final OutgoingObserver observer;

    private final Map<String, HoldingLimiter> limiters = new ConcurrentHashMap<>();

    public OutgoingCalls(List<OutgoingRoute> routes, RateLimiterRegistry registry, Holds holds, OutgoingObserver observer) {
        this.routes = List.copyOf(routes);
        this.registry = registry;
        this.holds = holds;
        this.observer = observer;
    }

    /**
     * Checks that every route names a limiter of the registry.
     *
     * @throws LimiterConfigurationException naming the route's limiter property
     */
    public void check() {
        for (OutgoingRoute route : routes) {
            limiter(route);
        }
    }

    /** Whether no route is configured, so no call is limited. */
    public boolean isEmpty() {
        return routes.isEmpty();
    }

    /** The limited call of {@code request}, by the first route taking it; null when none does. */
    public @Nullable Call call(OutgoingRequest request) {
        for (OutgoingRoute route : routes) {
            if (route.matches(request)) {
                return new Call(request, limiter(route), route.keyOf(request));
            }
        }
        return null;
    }

    private HoldingLimiter limiter(OutgoingRoute route) {
        HoldingLimiter holding = limiters.get(route.limiter());
        if (holding != null) {
            return holding;
        }
        RateLimiter found = registry.find(route.limiter()).orElseThrow(() -> unusable(route));
        holding = holds.of(found);
        limiters.put(route.limiter(), holding);
        return holding;
    }

    /** Why the route's limiter cannot decide its calls: it has plans, or there is none of that name. */
    private LimiterConfigurationException unusable(OutgoingRoute route) {
        String property = route.property() + ".limiter";
        Set<String> plans = registry.plans(route.limiter()).keySet();
        List<String> usable = registry.limiters().stream().map(RateLimiter::name).sorted().toList();
        String others = usable.isEmpty() ? "" : ", or name one of: " + String.join(", ", usable);
        if (!plans.isEmpty()) {
            // A plan is picked per call from what the application serves (a request, a principal); an outgoing call has none.
            return new LimiterConfigurationException(property, route.limiter(), "Limiter '" + route.limiter() + "' has plans "
                    + plans + ", but an outgoing call has no request or principal to pick a plan by",
                    "Name a limiter without plans: configure limiter.limiters.<name> with the upstream's limit (algorithm, limit, window, "
                            + "max-wait) and set " + property + " to it" + others);
        }
        return new LimiterConfigurationException(property, route.limiter(), "There is no limiter '" + route.limiter() + "'",
                "Configure limiter.limiters." + route.limiter() + " (algorithm, limit, window, max-wait)" + others);
    }

    /** One limited call: what it waited so far, against the limiter's max-wait. Used by one caller at a time. */
    public final class Call {

        private final OutgoingRequest request;

        private final HoldingLimiter holding;

        private final RateLimiter limiter;

        private final String key;

        private final Duration maxWait;

        private Duration waited = Duration.ZERO;

        Call(OutgoingRequest request, HoldingLimiter holding, String key) {
            this.request = request;
            this.holding = holding;
            this.limiter = holding.limiter();
            this.key = key;
            this.maxWait = limiter.config().maxWait();
        }

        public RateLimiter limiter() {
            return limiter;
        }

        public String key() {
            return key;
        }

        /** Whether reading and storing holds block the calling thread. */
        public boolean holdsBlock() {
            return holding.blocks();
        }

        /**
         * Takes the permit of a blocking call, waiting with {@code pause}; throws when it cannot within
         * max-wait. Each decision is one round trip; a held key is waited out and decided again, also when
         * the hold came while the call waited for its turn (see {@link #afterTurn}).
         */
        public void admit(Pause pause) throws InterruptedException {
            while (true) {
                HoldingLimiter.Answer answer = holding.tryAcquire(key, 1);
                if (answer.held()) {
                    pause.sleep(afterHold(answer.decision().retryAfter()));
                    continue;
                }
                Duration turn = afterDecision(answer.decision());
                if (turn.isZero()) {
                    break;
                }
                pause.sleep(turn);
                Duration hold = afterTurn(holdRemaining());
                if (hold.isZero()) {
                    break;
                }
                pause.sleep(hold);
            }
            proceeded();
        }

        /**
         * The wait for a hold that came while the call waited for its turn ({@code remaining}, zero for none),
         * counted against max-wait; after it the call is decided again. Its turn fell inside the hold, where the
         * upstream takes no call, so it is spent, not given back: going out at the hold's end on it would join
         * the calls whose turns fall there (calls bunched at the hold's end, more than the upstream's limit in
         * its next window); giving it back would move the limiter's schedule back under turns others reserved.
         *
         * @throws OutgoingCallRejectedException when the hold ends after max-wait
         */
        public Duration afterTurn(Duration remaining) {
            return remaining.isZero() ? remaining : afterHold(remaining);
        }

        /** The decision of the call, or a hold's rejection, without blocking where the limiter can. */
        public CompletionStage<HoldingLimiter.Answer> decideAsync() {
            return holding.tryAcquireAsync(key, 1);
        }

        /** How long the key is held now; zero when it is not. One round trip: only for a call that waited its turn. */
        public Duration holdRemaining() {
            return holding.holdRemaining(key);
        }

        /**
         * The wait for a hold of {@code hold}, counted against max-wait.
         *
         * @throws OutgoingCallRejectedException when the hold ends after max-wait
         */
        public Duration afterHold(Duration hold) {
            if (hold.compareTo(maxWait.minus(waited)) > 0) {
                long capacity = limiter.config().capacity(0);
                throw rejected(new Decision(false, capacity, 0, hold, hold), true);
            }
            waited = waited.plus(hold);
            return hold;
        }

        /**
         * The wait for the call's turn after {@code decision}: within max-wait, as the limiter reserved it, also after
         * a wait for a hold. Never cut to what a hold left of max-wait: that would give the permit back, and a permit
         * given back while other calls reserve turns moves the limiter's schedule back under theirs (a GCRA turn
         * taken twice, another left empty), which many callers waking together at a hold's end did.
         *
         * @throws OutgoingCallRejectedException when the limiter rejected the call (no turn within max-wait)
         */
        public Duration afterDecision(Decision decision) {
            if (decision.rejected()) {
                throw rejected(decision, false);
            }
            Duration turn = decision.waitFor();
            waited = waited.plus(turn);
            return turn;
        }

        /** The call goes out now. */
        public void proceeded() {
            observer.waited(limiter.name(), waited, true);
        }

        /** Learns from the upstream's answer whether it asks every instance to hold the key. */
        public void answered(int status, HttpHeaders headers) {
            Duration hold = UpstreamHolds.of(status, headers, Instant.now());
            if (!hold.isZero()) {
                holding.hold(key, hold);
                observer.held(limiter.name(), hold);
            }
        }

        private OutgoingCallRejectedException rejected(Decision decision, boolean held) {
            observer.waited(limiter.name(), waited, false);
            return new OutgoingCallRejectedException(limiter.name(), key, decision, waited, maxWait, held, request.toString());
        }
    }
}
