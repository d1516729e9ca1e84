package dev.limiter.spring.internal.interceptor;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.spring.internal.Consequence;
import dev.limiter.spring.internal.RateLimitResponse;
import dev.limiter.spring.internal.ServedRequest;

import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One call of a limited method whose key, cost and limit are known: what every return kind needs to
 * decide it, record its consequence (once), and then proceed, fail or fall back.
 */
final class InterceptedCall {

    private static final Log logger = LogFactory.getLog(InterceptedCall.class);

    private final MethodInvocation invocation;

    private final LimitedMethod method;

    private final RateLimitedMethods prepared;

    private final String key;

    private final long cost;

    /** The limit deciding the call (its plan's, or none); null while the key is still to be evaluated. */
    private final @Nullable AppliedLimit limit;

    /** The request known when the method was called, for a call whose key is evaluated later; null once evaluated. */
    private final @Nullable ServedRequest pending;

    InterceptedCall(MethodInvocation invocation, LimitedMethod method, RateLimitedMethods prepared, LimitedMethod.Call call) {
        this(invocation, method, prepared, call.key(), call.cost(), call.limit(), null);
    }

    private InterceptedCall(MethodInvocation invocation, LimitedMethod method, RateLimitedMethods prepared, String key, long cost,
            @Nullable AppliedLimit limit, @Nullable ServedRequest pending) {
        this.invocation = invocation;
        this.method = method;
        this.prepared = prepared;
        this.key = key;
        this.cost = cost;
        this.limit = limit;
        this.pending = pending;
    }

    /**
     * A call whose key and cost are evaluated later, on subscription, by {@link #evaluate(ServedRequest)}.
     *
     * @param request what is known of the request when the method is called (a servlet request)
     */
    static InterceptedCall pending(MethodInvocation invocation, LimitedMethod method, RateLimitedMethods prepared, ServedRequest request) {
        return new InterceptedCall(invocation, method, prepared, "", 1, null, request);
    }

    /** What was known of the request when the method was called, if the key is still to be evaluated; else null. */
    @Nullable ServedRequest pending() {
        return pending;
    }

    /**
     * This call with its key and cost evaluated for {@code request}, or null when the call is not to
     * be limited (missing key, skipped).
     */
    @Nullable InterceptedCall evaluate(ServedRequest request) {
        LimitedMethod.Call call = prepared.outcomes().evaluate(method, () -> method.call(invocation.getArguments(), invocation.getThis(), request));
        return (call != null) ? new InterceptedCall(invocation, method, prepared, call) : null;
    }

    LimitedMethod method() {
        return method;
    }

    /** The limited methods, with their outcomes and asynchronous executor. */
    RateLimitedMethods prepared() {
        return prepared;
    }

    /** Decides the call on this thread, observed. */
    Decision decide() {
        return prepared.outcomes().decide(method, limit().deciding(), key, cost);
    }

    /** Decides the call without blocking, observed. */
    CompletionStage<Decision> decideAsync() {
        return prepared.outcomes().decideAsync(method, limit().deciding(), key, cost);
    }

    private AppliedLimit limit() {
        if (limit == null) {
            throw new IllegalStateException("The call of " + method.site() + " is decided before its key is evaluated");
        }
        return limit;
    }

    /**
     * The consequence of {@code decision}, recorded: counted, logged in shadow mode, and announced in
     * the RateLimit header fields of {@code response}.
     *
     * @param response where the header fields go; null for the servlet response of the request this
     *     thread handles, if any
     */
    Consequence follow(Decision decision, @Nullable RateLimitResponse response) {
        Consequence consequence = Consequence.of(method, decision);
        AppliedLimit limit = limit();
        prepared.outcomes().record(method, limit.plan(), limit.headerFields(), key, consequence, response);
        return consequence;
    }

    /** Calls the method (or the next interceptor). */
    @Nullable Object proceed() throws Throwable {
        return invocation.proceed();
    }

    /**
     * Calls the method (or the next interceptor) as {@code consequence} lets it, giving the call's
     * permits back if it throws an exception of {@code refundOn}; the exception is thrown unchanged.
     */
    @Nullable Object proceed(Consequence consequence) throws Throwable {
        try {
            return invocation.proceed();
        }
        catch (Throwable ex) {
            refundIfDue(consequence, ex);
            throw ex;
        }
    }

    /**
     * Gives the call's permits back when it failed with {@code failure} after {@code consequence} let it
     * proceed: only if it took them (allowed, even by a shadow limiter; a rejected call took none) and
     * {@code refundOn} names the failure. Best effort: a refund that fails is logged, never thrown, so the
     * call's own failure is what the caller sees.
     */
    void refundIfDue(Consequence consequence, Throwable failure) {
        Throwable cause = unwrapped(failure);
        // An unlimited key or plan took nothing either.
        RateLimiter deciding = limit().deciding();
        if (!consequence.decision().allowed() || deciding == null || !method.refundsOn(cause)) {
            return;
        }
        try {
            deciding.refund(key, cost);
        }
        catch (RuntimeException ex) {
            logger.warn("Could not give " + cost + " permit" + ((cost == 1) ? "" : "s") + " back to limiter '" + method.name() + "' after "
                    + cause.getClass().getName() + " in " + method.site() + " (refundOn): " + ex.getMessage(), ex);
        }
    }

    /** As {@link #refundIfDue}, on {@code executor}: for a failure signalled on a thread that must not wait for Redis. */
    void refundLaterIfDue(Consequence consequence, Throwable failure, Executor executor) {
        if (!consequence.decision().allowed() || !method.refunds()) {
            return;
        }
        try {
            executor.execute(() -> refundIfDue(consequence, failure));
        }
        catch (RuntimeException ex) {
            logger.warn("Could not give permits back to limiter '" + method.name() + "' after a failure in " + method.site()
                    + " (refundOn): the executor refused the refund", ex);
        }
    }

    /**
     * Settles the call's actual cost once it returned {@code result} ({@code @RateLimited(settle)}): only if
     * the method settles and the call took its permits (allowed, even by a shadow limiter; a rejected call
     * took none). Best effort: an expression or a settlement that fails is logged and told to the listeners,
     * never thrown, so the caller gets the call's result.
     *
     * @return {@code result}, unchanged
     */
    @Nullable Object settled(Consequence consequence, @Nullable Object result) {
        RateLimiter deciding = settling(consequence);
        if (deciding != null) {
            try {
                deciding.settle(key, cost, actualCost(result));
            }
            catch (RuntimeException ex) {
                settleFailed(ex);
            }
        }
        return result;
    }

    /**
     * As {@link #settled}, without waiting for the settlement: through {@link RateLimiter#settleAsync}, for
     * a result delivered on a thread that must not wait for Redis (an event loop). A Redis limiter sends it
     * through the reactive API and holds no thread while Redis answers, or fails it at once while Redis is
     * out; a failure is logged and heard as by {@link #settled}.
     */
    void settleAsync(Consequence consequence, @Nullable Object result) {
        RateLimiter deciding = settling(consequence);
        if (deciding == null) {
            return;
        }
        CompletionStage<?> settlement;
        try {
            settlement = deciding.settleAsync(key, cost, actualCost(result));
        }
        catch (RuntimeException ex) {
            settleFailed(ex);
            return;
        }
        settlement.whenComplete((quota, failure) -> {
            if (failure != null) {
                Throwable cause = unwrapped(failure);
                settleFailed((cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause.getMessage(), cause));
            }
        });
    }

    /** The limiter to settle with, or null when nothing is to be settled: no settle, a rejected call, an unlimited key or plan. */
    private @Nullable RateLimiter settling(Consequence consequence) {
        if (!method.settles() || !consequence.decision().allowed()) {
            return null;
        }
        // An unlimited key or plan took nothing either.
        return limit().deciding();
    }

    /** What {@code #result} says the call cost, by the settle expression. */
    private long actualCost(@Nullable Object result) {
        return method.actualCost(invocation.getArguments(), invocation.getThis(), result);
    }

    /** What a stage failed with, unwrapped from the {@code CompletionException} a dependent stage sees. */
    private static Throwable unwrapped(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

    private void settleFailed(RuntimeException ex) {
        logger.warn("Could not settle the cost of a call of " + method.site() + " on limiter '" + method.name() + "' by settle = \""
                + method.settleExpression() + "\" (" + cost + " permit" + ((cost == 1) ? "" : "s") + " reserved stay taken): "
                + ex.getMessage(), ex);
        prepared.outcomes().settleFailed(method, ex);
    }

    /** Answers the rejected call through its fallback method. */
    @Nullable Object fallback(Decision decision) throws Throwable {
        return method.fallback(invocation.getThis(), invocation.getArguments(), limit(), decision);
    }

    /** The exception a rejected call fails with. */
    RateLimitExceededException rejection(Decision decision) {
        return new RateLimitExceededException(method.name(), limit().plan(), decision);
    }
}
