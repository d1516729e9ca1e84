package dev.limiter.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.limiter.Algorithm;
import dev.limiter.RateLimitExceededException;

import org.springframework.core.annotation.AliasFor;

/**
 * Limits calls of a method, or of every public method of a type, through the named limiter. A limiter
 * configured under {@code limiter.limiters.<name>} overrides the values given here, so limits can be
 * tuned without recompiling. A rejected call throws {@link RateLimitExceededException}.
 *
 * <pre>{@code
 * @RateLimited(name = "orders", key = "#user.id", algorithm = Algorithm.TOKEN_BUCKET, limit = 5, window = "10s")
 * public List<Order> orders(User user) { ... }
 * }</pre>
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface RateLimited {

    /** Alias for {@link #name()}. */
    @AliasFor("name")
    String value() default "";

    /**
     * Name of the limiter; calls that share a name share the limit. It is also the configuration key
     * {@code limiter.limiters.<name>}: letters, digits, '.', '-' or '_'.
     */
    @AliasFor("value")
    String name() default "";

    /**
     * SpEL expression over the method's parameters giving the key limited separately, such as
     * {@code #user.id}, {@code #p0} or {@code @tenants.current()}. Empty: one limit for all callers.
     * <p>
     * It may also name the HTTP request the call serves, unless a parameter has the same name:
     * {@code #request} (the {@code HttpServletRequest} in Spring MVC, the {@code ServerHttpRequest}
     * in WebFlux; null outside a request), {@code #principal} (Spring Security's authentication,
     * else the request's user principal; null for nobody or an anonymous user; a key that is a
     * principal is its name) and {@code #clientIp} (the client's address behind the trusted proxies
     * of {@code limiter.client-ip.*}). For a reactive method they are those of the subscription.
     */
    String key() default "";

    /**
     * Name of a {@link KeyResolver} bean that computes the key in code, instead of {@link #key()}
     * (give one or the other). Checked at startup.
     */
    String keyResolver() default "";

    /**
     * SpEL expression giving the plan a call is limited by, such as {@code #account.plan} or
     * {@code #request.getHeader('X-Plan') ?: 'free'}, with the same variables as {@link #key()};
     * unless {@code limiter.limiters.<name>.plan} or {@code plan-resolver} says otherwise. The plans
     * and their limits are configured under {@code limiter.limiters.<name>.plans}; a call whose plan
     * is none of them fails ({@link UnknownPlanException}). Empty: configuration picks the plan, if
     * the limiter has plans.
     */
    String plan() default "";

    /**
     * Name of a {@link PlanResolver} bean that picks the plan of a call in code, instead of
     * {@link #plan()} (give one or the other). Checked at startup.
     */
    String planResolver() default "";

    /**
     * Algorithm, unless {@code limiter.limiters.<name>.algorithm} says otherwise: fixed window,
     * sliding window, sliding log, token bucket, leaky bucket or GCRA.
     */
    Algorithm algorithm() default Algorithm.TOKEN_BUCKET;

    /** Permits per window, unless configured; 0 leaves it to configuration. */
    long limit() default 0;

    /** Window length such as {@code "10s"}, {@code "500ms"} or {@code "PT1H"}; empty leaves it to configuration. */
    String window() default "";

    /** Capacity of a bucket algorithm; 0 means equal to the limit. */
    long burst() default 0;

    /**
     * Several limits checked together, each {@code "<limit>/<window>"}, such as
     * {@code {"10/1s", "1000/1h"}}; instead of {@link #limit()} and {@link #window()}. A call passes
     * only if every limit admits it.
     */
    String[] limits() default {};

    /** Sub-windows per window of the sliding-window algorithm; 0 means 10. */
    int subWindows() default 0;

    /**
     * How long a call may wait for its permits instead of being rejected, such as {@code "500ms"}
     * (bucket algorithms); empty never waits.
     */
    String maxWait() default "";

    /**
     * SpEL expression giving the permits one call takes, a positive whole number; it may name the
     * same request variables as {@link #key()}.
     */
    String cost() default "1";

    /**
     * Whether the limiter only observes, unless {@code limiter.limiters.<name>.shadow} says
     * otherwise: decisions are made and permits taken as usual, but a rejected call proceeds, and
     * responses carry no RateLimit header fields. Lets a new limit be rolled out and watched before
     * it is enforced, with no change clients could see.
     */
    boolean shadow() default false;

    /**
     * Name of a method of the same class that answers instead of a rejected call: it takes the same
     * parameters, optionally followed by a {@link RateLimitExceededException}, and returns what this
     * method may return. Checked at startup. Empty: a rejected call throws.
     */
    String fallbackMethod() default "";

    /**
     * Exceptions (and their subclasses) on which a call gives back the permits it took, as if it had
     * not been made: for a call that fails before doing the work its permits pay for, such as a
     * downstream service that is unavailable. The method's exception is thrown unchanged; giving the
     * permits back is best effort (a refund that fails, such as while Redis is unavailable, is logged,
     * never thrown). For a {@code CompletionStage} the stage failing with one of them gives the permits
     * back; for a reactive type, each subscription's error signal does. Only a call that took permits
     * gives them back: a rejected call took none (and neither did a rejected call proceeding in shadow
     * mode), while a call a shadow limiter admitted did, so the shadow limiter counts as an enforcing
     * one would. Empty: permits are never given back.
     */
    Class<? extends Throwable>[] refundOn() default {};

    /**
     * SpEL expression giving what the call actually cost, once it has returned, for costs known only
     * after the call (tokens of an LLM answer, bytes, rows): {@code #result} is what the method returned
     * (the value a {@code CompletionStage} completed with, or a {@code Mono} emitted; null for an empty
     * one), and the method's parameters are named as in {@link #key()}. The call reserves {@link #cost()}
     * before it runs, its estimate; then the difference is given back or charged
     * ({@link dev.limiter.RateLimiter#settle}), and a cost above the estimate may take the key into debt,
     * so later calls wait or are rejected until it is paid off (docs/settled-costs.md). For example
     * {@code @RateLimited(name = "tokens", cost = "#request.maxTokens", settle = "#result.usage.totalTokens")}.
     * Settling is best effort and never fails the call: an expression that fails, or a settlement Redis
     * refuses, is logged (WARN) and counted. A call that throws settles nothing: its permits stay taken,
     * unless {@link #refundOn()} gives them back. Only for methods that return a value, a
     * {@code CompletionStage} or a {@code Mono} (not a {@code Flux}), limited by a rate limiter. Empty:
     * the call costs what it reserved.
     */
    String settle() default "";
}
