package dev.limiter.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;


/**
 * Limits a method returning a {@link CompletionStage} without blocking the caller: the key is
 * evaluated when the method is called, the decision is asked for at once, and the method is called
 * only once decided, since the work of a stage starts with the call. A rejection is a stage failed
 * with {@link RateLimitExceededException}; with max-wait, the call is delayed, not the thread.
 * <p>
 * A decision made at once (in memory, or by the failure policy) calls the method on the calling
 * thread, as without a limit. A decision coming from Redis calls it on the application's task
 * executor, never on the thread reading Redis' replies: many methods do some blocking work before
 * returning their stage.
 */
final class CompletionStageCalls {

    private CompletionStageCalls() {
    }

    static @Nullable Object limit(MethodInvocation invocation, LimitedMethod limited, RateLimitedMethods prepared) throws Throwable {
        Object target = invocation.getThis();
        Object[] args = invocation.getArguments();
        DecisionOutcomes outcomes = prepared.outcomes();
        LimitedMethod.Call call;
        try {
            call = outcomes.evaluate(limited, args, target);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        if (call == null) {
            return invocation.proceed();
        }
        String key = call.key();
        long cost = call.cost();
        RateLimitResponse response = outcomes.responseOfThisCall();
        CompletableFuture<Decision> decision = outcomes.decideAsync(limited, key, cost).toCompletableFuture();
        Executor executor = prepared.asyncExecutor();
        // A limiter of the application's own might fail its stage: that failure is the call's, below.
        if (decision.isDone() && !decision.isCompletedExceptionally()) {
            Decision decided = decision.join();
            Outcome outcome = limited.outcomeOf(decided);
            outcomes.record(limited, key, decided, outcome, response);
            if (outcome == Outcome.ALLOWED && !waits(limited, decided) || outcome == Outcome.SHADOW_REJECTED) {
                // As without a limit: the method's own stage, and its own exceptions, on this thread.
                return invocation.proceed();
            }
            return proceed(invocation, limited, target, args, decided, outcome, executor);
        }
        return decision.thenComposeAsync((decided) -> {
            Outcome outcome = limited.outcomeOf(decided);
            outcomes.record(limited, key, decided, outcome, response);
            return proceed(invocation, limited, target, args, decided, outcome, executor);
        }, executor);
    }

    /** What becomes of the call once decided, as a stage that never throws but fails. */
    private static CompletableFuture<Object> proceed(MethodInvocation invocation, LimitedMethod limited, @Nullable Object target,
            @Nullable Object[] args,
            Decision decision, Outcome outcome, Executor executor) {
        return switch (outcome) {
            case REJECTED -> CompletableFuture.failedFuture(new RateLimitExceededException(limited.limiter().name(), decision));
            case FALLBACK -> call(() -> limited.fallback(target, args, decision));
            case ALLOWED -> {
                if (waits(limited, decision)) {
                    // The permits are reserved: the call waits for its turn on a timer, not on a thread.
                    Executor turn = CompletableFuture.delayedExecutor(decision.waitFor().toNanos(), TimeUnit.NANOSECONDS, executor);
                    yield CompletableFuture.supplyAsync(() -> invocation, turn).thenCompose((ready) -> call(ready::proceed));
                }
                yield call(invocation::proceed);
            }
            case SHADOW_REJECTED -> call(invocation::proceed);
            // Not an outcome of a decision: calls that could not be decided failed before one.
            case ERROR -> throw new IllegalStateException("A decided call cannot have outcome " + outcome);
        };
    }

    /** With max-wait, an allowed call of a limiter that is not in shadow mode may have to wait for its turn. */
    private static boolean waits(LimitedMethod limited, Decision decision) {
        return !decision.waitFor().isZero() && !limited.shadow();
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Object> call(StageSupplier method) {
        try {
            Object stage = method.get();
            return (stage != null) ? (CompletableFuture<Object>) ((CompletionStage<?>) stage).toCompletableFuture()
                    : CompletableFuture.completedFuture(null);
        }
        catch (Throwable ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** The method or fallback returning the stage; it may throw anything. */
    @FunctionalInterface
    private interface StageSupplier {

        @Nullable Object get() throws Throwable;
    }
}
