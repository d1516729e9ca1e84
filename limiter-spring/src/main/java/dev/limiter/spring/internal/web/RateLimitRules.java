package dev.limiter.spring.internal.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.internal.CurrentServerExchange;
import dev.limiter.spring.internal.CurrentServletRequest;
import dev.limiter.spring.internal.CurrentServletResponse;
import dev.limiter.spring.internal.DecisionOutcomes;
import dev.limiter.spring.internal.RequestVariables;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.web.ClientIpResolver;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Rules limiting HTTP requests without an annotation ({@code limiter.rules}), checked at startup and
 * applied by a servlet filter or a WebFlux filter ({@code dev.limiter.spring.web}).
 * <p>
 * Every rule matching a request applies, in the order the rules are listed, each with its own
 * limiter and key, as its own decision; the first rejection ends it: the request fails with
 * {@link RateLimitExceededException} and the rules after it take nothing (those before it keep the
 * permits they took). A rule matches when the request's path (within the application) matches one
 * of its patterns, its method is one of the rule's (any, when it lists none; HEAD counts as GET; a
 * CORS pre-flight request only as OPTIONS), its {@code when} condition is true and its
 * {@code unless} condition is not. Decisions are counted, logged in shadow
 * mode and announced in the RateLimit header fields as those of {@code @RateLimited} calls are: each
 * limiter that allowed the request adds its member to both fields.
 */
public final class RateLimitRules {

    private final List<LimitedRule> rules;

    /** Each rule alone, by its index: the matching rules of a request that one rule matches, with nothing to allocate. */
    private final List<List<LimitedRule>> alone;

    private final DecisionOutcomes outcomes;

    /** How {@code #clientIp} is found; null when no rule reads it. */
    private final @Nullable ClientIpResolver clientIps;

    /** What the evaluation contexts of all requests share, {@code @bean} references included. */
    private final StandardEvaluationContext lookups;

    /**
     * @param rules the rules, in the order they apply
     * @param limiters where each rule's limiter is found by name, on the first request (once every
     *     annotation using it has completed it)
     * @param methods the limited methods, whose settings rules share: what a missing key does, how
     *     {@code #clientIp} is found, {@code @bean} references, and where decisions are recorded
     * @throws dev.limiter.spring.LimiterConfigurationException naming the property of a rule's first mistake
     */
    public RateLimitRules(List<RateLimitRule> rules, RateLimiterRegistry limiters, RateLimitedMethods methods) {
        List<LimitedRule> prepared = new ArrayList<>();
        for (RateLimitRule rule : rules) {
            prepared.add(LimitedRule.of(rule, () -> limiters.get(rule.limiter()), methods));
        }
        this.rules = List.copyOf(prepared);
        this.alone = this.rules.stream().map(List::of).toList();
        this.outcomes = methods.outcomes();
        // Found per request only when a rule reads #clientIp.
        this.clientIps = this.rules.stream().anyMatch(LimitedRule::usesClientIp) ? methods.clientIps() : null;
        this.lookups = RequestVariables.shared(methods.beanResolver());
        this.usesPrincipal = this.rules.stream().anyMatch(LimitedRule::usesPrincipal);
        this.plainPaths = this.rules.stream().allMatch(LimitedRule::hasPlainPaths);
    }

    /**
     * What {@link #admit(ServerWebExchange)} answers, as this very instance, for a request that may
     * proceed at once: the filter then goes on without subscribing to anything of the rules.
     */
    public static final Mono<Void> ADMITTED = Mono.empty();

    /** Whether every rule's path patterns are plain text: a servlet request's path then needs no parsing when it is plain too. */
    private final boolean plainPaths;

    /** Whether a rule reads {@code #principal}, which WebFlux finds only on subscription. */
    private final boolean usesPrincipal;

    /** Whether there is no rule: nothing to apply. */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /**
     * Applies the rules to a servlet request, blocking: decides it under every rule that matches and,
     * if all allow it, sets their RateLimit header fields on {@code response} and, with max-wait,
     * waits for its turn. Returns normally when the request may proceed.
     *
     * @throws RateLimitExceededException when a rule rejects the request
     * @throws dev.limiter.spring.MissingRateLimitKeyException when a rule's key is missing and limiter.on-missing-key is reject
     */
    public void admit(HttpServletRequest request, HttpServletResponse response) {
        admit(request, response, RuleDecisions.NONE);
    }

    /**
     * Applies the rules to a servlet request, blocking, as {@link #admit(HttpServletRequest, HttpServletResponse)}
     * does, telling {@code decisions} each decision.
     */
    public void admit(HttpServletRequest request, HttpServletResponse response, RuleDecisions decisions) {
        HttpMethod method = HttpMethod.valueOf(request.getMethod());
        boolean preFlight = CorsUtils.isPreFlightRequest(request);
        String plainPath = plainPaths ? PlainPath.within(request.getRequestURI(), request.getContextPath()) : null;
        List<LimitedRule> matching;
        if (plainPath != null) {
            matching = matching((rule) -> rule.matches(method, plainPath, preFlight));
        }
        else {
            PathContainer path = RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication();
            matching = matching((rule) -> rule.matches(method, path, preFlight));
        }
        if (matching.isEmpty()) {
            return;
        }
        RuleAdmission admission = new RuleAdmission(CurrentServletRequest.of(request, clientIps), outcomes, lookups, decisions);
        for (int i = 0; i < matching.size(); i++) {
            LimitedRule rule = matching.get(i);
            LimitedRule.Call call = admission.call(rule);
            if (call != null) {
                admission.follow(rule, call, admission.decide(rule, call));
            }
        }
        if (!admission.turnIn().isZero()) {
            awaitTurn(admission);
        }
        admission.setHeaderFields(CurrentServletResponse.of(response));
    }

    private static void awaitTurn(RuleAdmission admission) {
        try {
            TimeUnit.NANOSECONDS.sleep(admission.turnIn().toNanos());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting " + admission.turnIn().toMillis() + " ms for a rate limit permit", ex);
        }
    }

    /**
     * Applies the rules to a WebFlux exchange, without blocking: decides it under every rule that
     * matches, through the reactive Redis API, and, if all allow it, sets their RateLimit header
     * fields on the exchange's response and, with max-wait, waits for its turn on a timer. Completes
     * empty when the request may proceed; {@code #principal} is Spring Security's authentication in
     * the subscriber's context, else the exchange's principal.
     *
     * @return an error of {@link RateLimitExceededException} when a rule rejects the request, of
     *     {@link dev.limiter.spring.MissingRateLimitKeyException} when a rule's key is missing and limiter.on-missing-key is reject
     */
    public Mono<Void> admit(ServerWebExchange exchange) {
        return admit(exchange, RuleDecisions.NONE);
    }

    /**
     * Applies the rules to a WebFlux exchange, without blocking, as {@link #admit(ServerWebExchange)}
     * does, telling {@code decisions} each decision.
     */
    public Mono<Void> admit(ServerWebExchange exchange, RuleDecisions decisions) {
        ServerHttpRequest request = exchange.getRequest();
        // WebFlux has parsed the path already.
        HttpMethod method = request.getMethod();
        PathContainer path = request.getPath().pathWithinApplication();
        boolean preFlight = org.springframework.web.cors.reactive.CorsUtils.isPreFlightRequest(request);
        List<LimitedRule> matching = matching((rule) -> rule.matches(method, path, preFlight));
        if (matching.isEmpty()) {
            return ADMITTED;
        }
        if (!usesPrincipal) {
            // Who is authenticated is found in the subscriber's context, on subscription: only when read.
            return admit(exchange, matching, new RuleAdmission(CurrentServerExchange.servedRequest(request, clientIps), outcomes, lookups, decisions), 0);
        }
        return CurrentServerExchange.callRequest(exchange, clientIps)
            .flatMap((callRequest) -> admit(exchange, matching, new RuleAdmission(callRequest, outcomes, lookups, decisions), 0));
    }

    /**
     * Applies {@code matching} from the rule at {@code from} on: as long as decisions are known at once
     * (the memory backend, the local deny cache, a lease), on this thread without any operator, and
     * answering {@link #ADMITTED} when the request may proceed at once; from the first decision still
     * awaited (a Redis round trip) on, reactively.
     */
    private Mono<Void> admit(ServerWebExchange exchange, List<LimitedRule> matching, RuleAdmission admission, int from) {
        for (int i = from; i < matching.size(); i++) {
            LimitedRule rule = matching.get(i);
            CompletableFuture<Decision> decided;
            LimitedRule.Call call;
            try {
                call = admission.call(rule);
                if (call == null) {
                    continue;
                }
                decided = outcomes.decideAsync(rule, rule.decidingLimiter(call), call.key(), call.cost()).toCompletableFuture();
                if (decided.isDone() && !decided.isCompletedExceptionally()) {
                    admission.follow(rule, call, decided.join());
                    continue;
                }
            }
            catch (RuntimeException ex) {
                return Mono.error(ex);
            }
            int next = i + 1;
            return Mono.fromCompletionStage(decided)
                .doOnNext((decision) -> admission.follow(rule, call, decision))
                .then(Mono.defer(() -> admit(exchange, matching, admission, next)));
        }
        if (!admission.turnIn().isZero()) {
            return Mono.delay(admission.turnIn()).then(Mono.fromRunnable(() -> admission.setHeaderFields(CurrentServerExchange.response(exchange))));
        }
        admission.setHeaderFields(CurrentServerExchange.response(exchange));
        return ADMITTED;
    }

    private List<LimitedRule> matching(Predicate<LimitedRule> matches) {
        // Indexed, and no list made for the common request one rule matches: both showed in allocation profiles.
        int first = -1;
        List<LimitedRule> matching = null;
        for (int i = 0; i < rules.size(); i++) {
            LimitedRule rule = rules.get(i);
            if (matches.test(rule)) {
                if (first < 0) {
                    first = i;
                }
                else {
                    if (matching == null) {
                        matching = new ArrayList<>(4);
                        matching.add(rules.get(first));
                    }
                    matching.add(rule);
                }
            }
        }
        return (matching != null) ? matching : (first >= 0) ? alone.get(first) : List.of();
    }

    @Override
    public String toString() {
        return "RateLimitRules" + rules;
    }
}
