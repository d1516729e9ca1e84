package dev.limiter.spring;

/** What happens to a call whose rate limit key expression yields null or empty text. */
public enum MissingKeyPolicy {

    /** The call fails with {@link MissingRateLimitKeyException} (400 Bad Request over HTTP). */
    REJECT,

    /** The call runs without rate limiting. */
    SKIP,

    /** The call is limited under one key shared by every such call. */
    SHARED

}
