package dev.limiter;

/**
 * One attempt to take a slot of a {@link ConcurrencyLimiter}, as its {@link DecisionListener}s hear it
 * ({@link DecisionListener#onConcurrencyDecision}): exactly once per {@link ConcurrencyLimiter#tryAcquire}
 * or {@link ConcurrencyLimiter#acquire} call, after it ended. Releases and lease renewals are not
 * decisions and are not heard.
 *
 * @param limiter the concurrency limiter asked
 * @param outcome {@link Outcome#ALLOWED} when the call got a permit, {@link Outcome#REJECTED} when it did not
 * @param source what decided: {@link DecisionSource#REDIS} or {@link DecisionSource#MEMORY} for the
 *     limit's own state, {@link DecisionSource#FAILURE_POLICY} for {@code allow}/{@code deny} while Redis
 *     fails, {@link DecisionSource#LOCAL_FALLBACK} for the in-memory share of {@code local}
 * @param waitedNanos how long an {@link ConcurrencyLimiter#acquire} call took in all, waiting for a slot
 *     included; -1 for {@link ConcurrencyLimiter#tryAcquire}, which never waits
 */
public record ConcurrencyEvent(ConcurrencyLimiter limiter, Outcome outcome, DecisionSource source, long waitedNanos) {
}
