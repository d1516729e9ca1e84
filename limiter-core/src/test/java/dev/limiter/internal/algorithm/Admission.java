package dev.limiter.internal.algorithm;

/**
 * Whether a request passes every limit, before anything is taken.
 *
 * @param allowed whether every limit admits it (possibly after waiting up to max-wait)
 * @param waitFor microseconds an allowed caller waits first (max-wait only), else 0
 * @param retryAfter microseconds after which a rejected request could pass; -1 when it never can
 * @param violated index of the violated limit, -1 when allowed
 */
record Admission(boolean allowed, long waitFor, long retryAfter, int violated) {
}
