package dev.limiter.internal.algorithm;

/**
 * What one limit of one key says at the time of a request, as each algorithm section of
 * docs/algorithms.md defines it. Read-only: the model applies an admitted request itself.
 */
interface LimitView {

    /** The most permits one request can ever get: L for window algorithms, B for buckets. */
    long capacity();

    /** Whether this limit admits {@code permits} now, without waiting. */
    boolean admits(long permits);

    /** Microseconds until this limit would admit {@code permits}; asked only when it does not now and permits fit the capacity. */
    long retryAfter(long permits);

    /**
     * Permits left now, rounded down; below 0 for a bucket in debt (max-wait). The spec's
     * {@code remaining} is this, never below 0: {@link DecisionRule} applies that bound when it reports.
     */
    long remaining();

    /** Microseconds until this limit is whole again with no further requests; 0 when it is. */
    long resetAfter();
}
