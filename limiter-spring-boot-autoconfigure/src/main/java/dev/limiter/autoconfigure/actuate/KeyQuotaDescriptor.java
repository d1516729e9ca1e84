package dev.limiter.autoconfigure.actuate;

/**
 * What {@code GET /actuator/limiters/{name}/{key}} answers: a key's quota, or with plans, its quota in every plan; for
 * a concurrency limit, its calls in flight.
 */
public sealed interface KeyQuotaDescriptor permits QuotaDescriptor, PlanQuotasDescriptor, InFlightDescriptor {

    /** The limiter. */
    String limiter();

    /** The key. */
    String key();
}
