package dev.limiter.spring.internal.web;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.spring.internal.Consequence;
import dev.limiter.spring.internal.DecisionOutcomes;
import dev.limiter.spring.internal.RequestVariables;
import dev.limiter.spring.internal.RateLimitResponse;
import dev.limiter.spring.internal.ServedRequest;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * One request going through the rules that match it: evaluates each rule's expressions in one
 * context, records each decision through {@link DecisionOutcomes} as an annotated call's would be,
 * and gathers what the request then carries: the RateLimit header fields of the rules that allowed
 * it and the longest wait for a turn. The first rejection ends it.
 */
final class RuleAdmission implements RateLimitResponse {

    private final ServedRequest request;

    private final DecisionOutcomes outcomes;

    private final StandardEvaluationContext lookups;

    private final RuleDecisions decisions;

    private @Nullable EvaluationContext context;

    /*
     * The fields of the limiters that allowed the request, by their policy (one entry per limiter): the first
     * in two fields, for the request one rule applies to; a map from the second policy on.
     */
    private @Nullable String firstPolicy;

    private @Nullable String firstRateLimit;

    private @Nullable Map<String, String> fields;

    private Duration turnIn = Duration.ZERO;

    RuleAdmission(ServedRequest request, DecisionOutcomes outcomes, StandardEvaluationContext lookups, RuleDecisions decisions) {
        this.request = request;
        this.outcomes = outcomes;
        this.lookups = lookups;
        this.decisions = decisions;
    }

    /**
     * The key and cost of the request under {@code rule}; null when the rule does not apply to it. A
     * failing expression (and a missing key that is rejected) is counted as an error of the rule's
     * limiter before the exception goes on.
     */
    LimitedRule.@Nullable Call call(LimitedRule rule) {
        return outcomes.evaluate(rule, () -> rule.call(context()));
    }

    /** Decides the request under {@code rule}, blocking. */
    Decision decide(LimitedRule rule, LimitedRule.Call call) {
        return outcomes.decide(rule, rule.decidingLimiter(call), call.key(), call.cost());
    }

    /**
     * Records what {@code decision} makes of the request under {@code rule}.
     *
     * @throws RateLimitExceededException when the rule rejects the request (unless its limiter is in shadow mode)
     */
    void follow(LimitedRule rule, LimitedRule.Call call, Decision decision) {
        Consequence consequence = Consequence.of(rule, decision);
        RateLimiter decided = rule.limiter(call);
        if (decided != null) {
            decisions.decided(decided, call.cost(), decision);
        }
        outcomes.record(rule, call.plan(), rule.headerFields(call), call.key(), consequence, this);
        switch (consequence.step()) {
            case FAIL -> throw new RateLimitExceededException(rule.limiter().name(), call.plan(), decision);
            case AWAIT_TURN -> {
                if (consequence.turnIn().compareTo(turnIn) > 0) {
                    turnIn = consequence.turnIn();
                }
            }
            default -> {
            }
        }
    }

    /** How long the request waits before it proceeds: its permits were reserved that far ahead (max-wait). */
    Duration turnIn() {
        return turnIn;
    }

    /** Keeps the fields of one limiter that allowed the request, for {@link #setHeaderFields(RateLimitResponse)}. */
    @Override
    public void setHeaderFields(String policy, String rateLimit) {
        Map<String, String> more = this.fields;
        if (more != null) {
            more.put(policy, rateLimit);
        }
        else if (firstPolicy == null || firstPolicy.equals(policy)) {
            firstPolicy = policy;
            firstRateLimit = rateLimit;
        }
        else {
            more = new LinkedHashMap<>();
            more.put(firstPolicy, Objects.requireNonNull(firstRateLimit));
            more.put(policy, rateLimit);
            this.fields = more;
        }
    }

    /** Sets the RateLimit header fields of every limiter that allowed the request, each as one member of the lists. */
    void setHeaderFields(RateLimitResponse response) {
        Map<String, String> more = this.fields;
        if (more != null) {
            response.setHeaderFields(String.join(", ", more.keySet()), String.join(", ", more.values()));
        }
        else if (firstPolicy != null) {
            // One rule applied, the common case: its fields as they are.
            response.setHeaderFields(firstPolicy, Objects.requireNonNull(firstRateLimit));
        }
    }

    /** The variables of the request, as for {@code @RateLimited} keys; made once, for the first rule that needs them. */
    private EvaluationContext context() {
        EvaluationContext made = this.context;
        if (made == null) {
            made = new RequestVariables(lookups, request.request(), request.principal(), request.clientIp());
            this.context = made;
        }
        return made;
    }
}
