package dev.limiter.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * What {@code GET /actuator/limiters/{name}/{key}} answers for a concurrency limit: the key's calls in
 * flight now across every instance (slots taken, leases not run out) and the slots still free, read
 * without taking or renewing a slot; when the state cannot be read (Redis unavailable), both are null and
 * {@code error} says why: no count is guessed.
 */
public record InFlightDescriptor(String limiter, String key, long limit, @Nullable Integer inFlight, @Nullable Long available,
        @Nullable String error) implements KeyQuotaDescriptor {
}
