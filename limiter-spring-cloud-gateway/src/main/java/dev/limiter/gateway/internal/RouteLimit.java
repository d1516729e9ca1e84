package dev.limiter.gateway.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.limiter.Decision;
import dev.limiter.RateLimiter;
import dev.limiter.spring.internal.Consequence;
import dev.limiter.spring.internal.DecisionOutcomes;
import dev.limiter.spring.internal.EnforcementPoint;
import dev.limiter.spring.internal.RateLimitHeaderFields;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

/**
 * The limit of one gateway route deciding through Spring Cloud Gateway's {@code RequestRateLimiter}
 * filter, whose key resolver gives the key: a limiter of the registry, decided, counted, logged in
 * shadow mode and announced as a rule of {@code limiter.rules} is ({@link DecisionOutcomes},
 * {@link Consequence}, {@link RateLimitHeaderFields}), with the answer's header fields gathered in a
 * map, which that filter copies onto the response.
 */
public final class RouteLimit implements EnforcementPoint {

    private final RateLimiter limiter;

    private final RateLimiter deciding;

    private final String site;

    private final boolean shadow;

    private final DecisionOutcomes outcomes;

    private final boolean ietfFields;

    private final @Nullable XRateLimitHeaders xRateLimitHeaders;

    private volatile @Nullable RateLimitHeaderFields headerFields;

    /**
     * @param limiter the registry's limiter deciding the route
     * @param site where it is declared, for messages, such as "RequestRateLimiter of route 'orders'"
     * @param shadow whether the limiter only observes
     * @param outcomes where decisions are recorded (and allowed ones' RateLimit fields made)
     * @param ietfFields whether answers carry the IETF RateLimit fields (limiter.headers.enabled)
     * @param xRateLimitHeaders the X-RateLimit-* fields answers carry; null for none
     */
    public RouteLimit(RateLimiter limiter, String site, boolean shadow, DecisionOutcomes outcomes, boolean ietfFields,
            @Nullable XRateLimitHeaders xRateLimitHeaders) {
        this.limiter = limiter;
        this.site = site;
        this.shadow = shadow;
        this.outcomes = outcomes;
        this.ietfFields = ietfFields;
        this.xRateLimitHeaders = xRateLimitHeaders;
        this.deciding = limiter.reportingRejectionsAs(Consequence.rejectedAs(shadow, false));
    }

    /** The limiter to decide with, reporting its rejections as what becomes of them on this route. */
    public RateLimiter deciding() {
        return deciding;
    }

    /**
     * What {@code decision} makes of a request with {@code key} taking {@code cost} permits: recorded, and
     * the answer's header fields.
     */
    public Answer follow(String key, long cost, Decision decision) {
        Consequence consequence = Consequence.of(this, decision);
        Map<String, String> fields = new LinkedHashMap<>();
        RateLimitHeaderFields rateLimitFields = headerFields();
        outcomes.record(this, null, rateLimitFields, key, consequence, (policy, rateLimit) -> {
            fields.put(RateLimitHeaderFields.RATE_LIMIT_POLICY, policy);
            fields.put(RateLimitHeaderFields.RATE_LIMIT, rateLimit);
        });
        boolean rejected = consequence.step() == Consequence.Step.FAIL;
        if (rejected) {
            // As the 429 handler answers a rejection: the violated limit's fields and when to retry.
            if (ietfFields) {
                fields.put(RateLimitHeaderFields.RATE_LIMIT_POLICY, rateLimitFields.policy());
                fields.put(RateLimitHeaderFields.RATE_LIMIT, rateLimitFields.rateLimit(decision));
            }
            if (!decision.neverAllowed()) {
                fields.put(HttpHeaders.RETRY_AFTER, Long.toString(RateLimitHeaderFields.retryAfterSeconds(decision.retryAfter())));
            }
        }
        if (xRateLimitHeaders != null && !shadow) {
            xRateLimitHeaders.put(limiter, cost, decision, fields::put);
        }
        Duration turnIn = (consequence.step() == Consequence.Step.AWAIT_TURN) ? consequence.turnIn() : Duration.ZERO;
        return new Answer(!rejected, turnIn, fields);
    }

    private RateLimitHeaderFields headerFields() {
        RateLimitHeaderFields known = headerFields;
        RateLimitHeaderFields fields = RateLimitHeaderFields.current(known, limiter);
        if (fields != known) {
            headerFields = fields;
        }
        return fields;
    }

    @Override
    public RateLimiter limiter() {
        return limiter;
    }

    @Override
    public String site() {
        return site;
    }

    @Override
    public boolean shadow() {
        return shadow;
    }

    @Override
    public boolean hasFallback() {
        return false;
    }

    @Override
    public String toString() {
        return site;
    }

    /**
     * What the gateway answers.
     *
     * @param allowed whether the request goes on to the route's backend
     * @param turnIn how long it waits first (max-wait); zero for not at all
     * @param headerFields the header fields of the answer
     */
    public record Answer(boolean allowed, Duration turnIn, Map<String, String> headerFields) {
    }
}
