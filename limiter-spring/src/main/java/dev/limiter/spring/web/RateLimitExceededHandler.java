package dev.limiter.spring.web;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.spring.internal.RateLimitHeaderFields;

import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a rejected call with {@code 429 Too Many Requests}, a {@code Retry-After} header in whole
 * seconds (rounded up), the {@code RateLimit-Policy} and {@code RateLimit} header fields (see
 * {@link RateLimitHeaderFields}; a plan's own) and a problem detail naming the limiter, its plan and
 * the violated limit, and
 * a call without its rate limit key with {@code 400 Bad Request}. Serves Spring MVC and Spring
 * WebFlux alike (for WebFlux, also rejections signalled by a {@code Mono} or {@code Flux}). Ordered
 * last, so the application's own exception handlers take precedence.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceededHandler {

    private final @Nullable RateLimiterRegistry registry;

    private final Map<String, RateLimitHeaderFields> headerFields = new ConcurrentHashMap<>();

    /** A handler that sets no RateLimit header fields. */
    public RateLimitExceededHandler() {
        this(null);
    }

    /**
     * A handler that also sets the RateLimit header fields of the rejecting limiter.
     *
     * @param registry where the limiters are found, or null for no RateLimit header fields
     */
    public RateLimitExceededHandler(@Nullable RateLimiterRegistry registry) {
        this.registry = registry;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException ex) {
        Decision decision = ex.getDecision();
        ProblemDetail problem = ProblemDetail.forStatus(HttpStatus.TOO_MANY_REQUESTS);
        problem.setTitle("Too Many Requests");
        problem.setProperty("limiter", ex.getLimiterName());
        if (ex.getPlan() != null) {
            problem.setProperty("plan", ex.getPlan());
        }
        problem.setProperty("limit", decision.limit());
        if (decision.violatedLimit() != null) {
            problem.setProperty("violatedLimit", RateLimitHeaderFields.describe(decision.violatedLimit()));
        }
        ResponseEntity.BodyBuilder response = ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS);
        RateLimitHeaderFields fields = headerFields(ex.getLimiterName(), ex.getPlan());
        if (fields != null) {
            response.header(RateLimitHeaderFields.RATE_LIMIT_POLICY, fields.policy());
            response.header(RateLimitHeaderFields.RATE_LIMIT, fields.rateLimit(decision));
        }
        String plan = (ex.getPlan() != null) ? " (plan '" + ex.getPlan() + "')" : "";
        if (decision.neverAllowed()) {
            problem.setDetail("The request costs more than limiter '" + ex.getLimiterName() + "'" + plan + " can ever allow ("
                    + decision.limit() + " permits)");
        }
        else {
            long seconds = retryAfterSeconds(decision.retryAfter());
            problem.setDetail("Rate limit '" + ex.getLimiterName() + "'" + plan + " exceeded; retry after " + seconds + " s");
            problem.setProperty("retryAfter", seconds);
            response.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
        }
        return response.body(problem);
    }

    /**
     * The header fields of the named limiter, or of its plan, built once per limiter, plan and
     * configuration: rejections come in floods, and a limiter's policy changes only when it is retuned.
     */
    private @Nullable RateLimitHeaderFields headerFields(String limiterName, @Nullable String plan) {
        if (registry == null) {
            return null;
        }
        RateLimiter limiter = ((plan != null) ? registry.find(limiterName, plan) : registry.find(limiterName)).orElse(null);
        if (limiter == null) {
            return null;
        }
        // Neither names nor plans hold '/'.
        String cacheKey = (plan != null) ? limiterName + "/" + plan : limiterName;
        RateLimitHeaderFields cached = headerFields.get(cacheKey);
        RateLimitHeaderFields fields = RateLimitHeaderFields.current(cached, limiter);
        if (fields != cached) {
            headerFields.put(cacheKey, fields);
        }
        return fields;
    }

    /** A call whose rate limit key is missing (limiter.on-missing-key=reject) is the client's mistake. */
    @ExceptionHandler(MissingRateLimitKeyException.class)
    public ResponseEntity<ProblemDetail> handleMissingKey(MissingRateLimitKeyException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "The request lacks what rate limiter '" + ex.getLimiterName() + "' limits by");
        problem.setProperty("limiter", ex.getLimiterName());
        return ResponseEntity.badRequest().body(problem);
    }

    /**
     * Whole seconds, rounded up and at least 1, so a client never retries too early: the decision's
     * retry-after is already the latest of the violated limits'. The RateLimit field's {@code t}
     * of a rejection carries the same value.
     */
    static long retryAfterSeconds(Duration retryAfter) {
        return RateLimitHeaderFields.retryAfterSeconds(retryAfter);
    }
}
