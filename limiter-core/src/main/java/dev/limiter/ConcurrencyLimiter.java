package dev.limiter;

import java.util.Optional;

/**
 * A named limit of calls in flight: at most {@link ConcurrencyLimiterConfig#limit()} calls per key hold a
 * {@link Permit} at once, across every instance sharing the backend. Unlike a {@link RateLimiter} it
 * counts calls while they run, not how often they start: a call takes a slot when it starts and gives it
 * back when its permit is closed. Created by {@link RateLimiterFactory#createConcurrencyLimiter}.
 * Thread-safe; see docs/concurrency-limits.md.
 */
public interface ConcurrencyLimiter extends AutoCloseable {

    /** Name of the limiter, as used in configuration ({@code limiter.limiters.<name>}) and in keys. */
    String name();

    /** What the limiter decides by. */
    ConcurrencyLimiterConfig config();

    /**
     * Takes a slot of {@code key} if one is free now and not due to a caller waiting in {@link #acquire},
     * never waiting: it takes only slots beyond those of the waiters queued, and never queues.
     *
     * @param key the subject limited, such as a customer id; "" limits everyone together
     * @return the permit holding the slot, empty when every slot is taken or due to a waiter
     */
    Optional<Permit> tryAcquire(String key);

    /**
     * Takes a slot of {@code key}, waiting up to {@link ConcurrencyLimiterConfig#maxWait()} for one to come
     * free. Waiters of every instance are served first come, first served: each holds a place in the key's
     * queue, renewed by its attempts (retried with a randomized backoff, up to 100 ms apart), and only the
     * waiters at its head take the slots that come free. A waiter that gives up leaves the queue; one that
     * stops polling loses its place after a second.
     *
     * @param key the subject limited
     * @return the permit holding the slot
     * @throws RateLimitExceededException when no slot came free in time; its decision has
     *     {@code remaining} 0 and {@code limit} the configured limit
     */
    Permit acquire(String key);

    /** Slots this instance holds now, over every key: what its metrics show as in use. */
    int inUse();

    /**
     * Calls of {@code key} in flight now, across every instance: the slots taken whose lease has not run
     * out. Reads without taking a slot or renewing one; on Redis, one round trip.
     *
     * @param key the subject limited
     * @return slots of {@code key} taken now, from 0 to the limit
     * @throws RuntimeException when the state cannot be read, such as while Redis is unavailable: no
     *     failure policy guesses a count
     */
    int inFlight(String key);

    /**
     * Stops renewing: permits still open keep their slots until they are closed or their lease runs out,
     * whichever comes first. For shutdown.
     */
    @Override
    void close();
}
