package dev.limiter;

/**
 * A slot of a {@link ConcurrencyLimiter} held by one call: closing it releases the slot. Use it in
 * try-with-resources so the slot comes back whether the call returns or throws:
 * <pre>{@code
 * try (Permit permit = limiter.acquire(customerId)) {
 *     return upstream.call();
 * }
 * }</pre>
 * While it is open, its instance renews its lease; a permit never closed (its holder died) comes back
 * after the lease. Thread-safe; closing more than once releases once.
 */
public interface Permit extends AutoCloseable {

    /** The key whose slot this is. */
    String key();

    /** Releases the slot; later calls do nothing. Never throws: a release that fails leaves the slot to its lease. */
    @Override
    void close();
}
