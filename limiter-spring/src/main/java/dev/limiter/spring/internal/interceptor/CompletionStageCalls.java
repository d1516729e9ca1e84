package dev.limiter.spring.internal.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import dev.limiter.Decision;
import dev.limiter.spring.internal.Consequence;
import dev.limiter.spring.internal.RateLimitResponse;

import org.jspecify.annotations.Nullable;

/**
 * Limits a method returning a {@link CompletionStage} without blocking the caller: the key is
 * evaluated when the method is called, the decision is asked for at once, and the method is called
 * only once decided, since the work of a stage starts with the call. A rejection is a stage failed
 * with {@link dev.limiter.RateLimitExceededException}; with max-wait, the call is delayed, not the thread.
 * <p>
 * A decision made at once (in memory, or by the failure policy) calls the method on the calling
 * thread, as without a limit. A decision coming from Redis calls it on the application's task
 * executor, never on the thread reading Redis' replies: many methods do some blocking work before
 * returning their stage.
 */
final class CompletionStageCalls implements ReturnKind {

    static final CompletionStageCalls INSTANCE = new CompletionStageCalls();

    private CompletionStageCalls() {
    }

    @Override
    public @Nullable Object limit(InterceptedCall call) throws Throwable {
        RateLimitResponse response = call.prepared().outcomes().responseOfThisCall();
        CompletableFuture<Decision> decision = call.decideAsync().toCompletableFuture();
        Executor executor = call.prepared().asyncExecutor();
        // A limiter of the application's own might fail its stage: that failure is the call's, below.
        if (decision.isDone() && !decision.isCompletedExceptionally()) {
            Consequence consequence = call.follow(decision.join(), response);
            if (consequence.step() == Consequence.Step.PROCEED) {
                // As without a limit: the method's own stage, and its own exceptions, on this thread.
                return proceed(call, consequence, executor);
            }
            return render(call, consequence, executor);
        }
        return decision.thenComposeAsync((decided) -> render(call, call.follow(decided, response), executor), executor);
    }

    @Override
    public Object failure(RuntimeException ex) {
        return CompletableFuture.failedFuture(ex);
    }

    @Override
    public boolean isCompletionStage() {
        return true;
    }

    /** The consequence as a stage that never throws but fails. */
    private static CompletableFuture<Object> render(InterceptedCall call, Consequence consequence, Executor executor) {
        Decision decision = consequence.decision();
        return switch (consequence.step()) {
            case PROCEED -> stage(() -> proceed(call, consequence, executor));
            case AWAIT_TURN -> {
                // The permits are reserved: the call waits for its turn on a timer, not on a thread.
                Executor turn = CompletableFuture.delayedExecutor(consequence.turnIn().toNanos(), TimeUnit.NANOSECONDS, executor);
                yield CompletableFuture.supplyAsync(() -> call, turn).thenCompose((ready) -> stage(() -> proceed(ready, consequence, executor)));
            }
            case FAIL -> CompletableFuture.failedFuture(call.rejection(decision));
            case FALL_BACK -> stage(() -> call.fallback(decision));
        };
    }

    /**
     * Calls the method, giving the call's permits back when it throws, or its stage fails, with an
     * exception of refundOn, and settling its actual cost when the stage completes (settle). The method's
     * own stage is returned, untouched: the refund or settlement waits for it on the side, the refund on
     * the executor and the settlement sent asynchronously, since the stage may complete on a thread that
     * must not wait for Redis.
     */
    private static @Nullable Object proceed(InterceptedCall call, Consequence consequence, Executor executor) throws Throwable {
        Object stage = call.proceed(consequence);
        if (stage instanceof CompletionStage<?> result && (call.method().refunds() || call.method().settles())) {
            result.whenComplete((value, failure) -> {
                if (failure != null) {
                    call.refundLaterIfDue(consequence, failure, executor);
                }
                else {
                    call.settleAsync(consequence, value);
                }
            });
        }
        return stage;
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Object> stage(StageSupplier method) {
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
