package dev.limiter.spring.internal.interceptor;

import java.util.concurrent.TimeUnit;

import dev.limiter.Decision;
import dev.limiter.spring.internal.Consequence;

import org.jspecify.annotations.Nullable;

/**
 * Limits a method returning a plain value, or nothing: decided on the calling thread before the
 * method runs; a rejection is thrown, and with max-wait the calling thread waits for its turn.
 */
final class BlockingCalls implements ReturnKind {

    static final BlockingCalls INSTANCE = new BlockingCalls();

    private BlockingCalls() {
    }

    @Override
    public @Nullable Object limit(InterceptedCall call) throws Throwable {
        Consequence consequence = call.follow(call.decide(), null);
        Decision decision = consequence.decision();
        return switch (consequence.step()) {
            case PROCEED -> call.settled(consequence, call.proceed(consequence));
            case AWAIT_TURN -> {
                awaitTurn(call.method(), consequence);
                yield call.settled(consequence, call.proceed(consequence));
            }
            case FAIL -> throw call.rejection(decision);
            case FALL_BACK -> call.fallback(decision);
        };
    }

    @Override
    public Object failure(RuntimeException ex) {
        throw ex;
    }

    @Override
    public boolean isAsync() {
        return false;
    }

    /** With max-wait, the permits are already reserved: the call only has to wait for its turn. */
    private static void awaitTurn(LimitedMethod limited, Consequence consequence) {
        try {
            TimeUnit.NANOSECONDS.sleep(consequence.turnIn().toNanos());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting " + consequence.turnIn().toMillis() + " ms for a permit of limiter '"
                    + limited.name() + "'", ex);
        }
    }
}
