package dev.limiter;

/**
 * Hears every decision limiters make, as {@link DecisionEvent}s (and {@link ConcurrencyEvent}s for
 * concurrency limits): what metrics, observations and tracing listen to. Called on the deciding thread (for an asynchronous decision, the thread that
 * completes it), so it must be quick and must not throw.
 *
 * <p>A listener that needs to see a decision begin, such as one timing it or opening a span, returns
 * from {@link #onStart} the listener that is to hear how that one decision ends. Only decisions that
 * leave the process are started: those sent to Redis. A decision made in the process (by the memory
 * backend, the local deny cache, a lease, or the failure policy while Redis is out) takes well under a
 * microsecond, less than a span or timer of its own would cost; it is heard by {@link #onDecision} only.
 */
@FunctionalInterface
public interface DecisionListener {

    /** A listener that does nothing. */
    DecisionListener NONE = (event) -> {
    };

    /**
     * Hears that {@code limiter} sends a decision to Redis, on the calling thread, before the script is
     * sent; the listener returned hears that decision's event (answered by Redis, or by the failure
     * policy if Redis fails it). The default returns this listener, which then hears the event as any other.
     */
    default DecisionListener onStart(RateLimiter limiter) {
        return this;
    }

    /** Hears one decision, or one call that could not be decided, once. */
    void onDecision(DecisionEvent event);

    /**
     * Hears one attempt to take a slot of a concurrency limit, once, on the calling thread after it
     * ended. The default ignores it.
     */
    default void onConcurrencyDecision(ConcurrencyEvent event) {
    }

    /**
     * Hears that a call of {@code limiter} could not be settled after it ran ({@code @RateLimited(settle)},
     * docs/settled-costs.md): its settle expression failed, or the settlement did ({@link SettleFailedException}).
     * The call itself went on; the key keeps the permits the call reserved. The default does nothing.
     */
    default void onSettleFailed(RateLimiter limiter, RuntimeException failure) {
    }
}
