package dev.limiter;

/** What made a decision. */
public enum DecisionSource {

    /** The algorithm's script in Redis. */
    REDIS("redis"),

    /**
     * A rejection Redis gave earlier for the same key, remembered in this process until its
     * retry-after (the local deny cache), so Redis was not asked.
     */
    LOCAL_DENY_CACHE("local-deny-cache"),

    /**
     * Permits this instance leased from Redis earlier for the same hot key, handed out here without
     * asking Redis (see {@link RateLimiterConfig.Lease}). Only ever allows: rejections come from Redis.
     */
    LEASE("lease"),

    /** The in-memory backend. */
    MEMORY("memory"),

    /** The in-memory twin standing in for Redis while it fails ({@link FailurePolicy#LOCAL}). */
    LOCAL_FALLBACK("local-fallback"),

    /** The {@link FailurePolicy#ALLOW} or {@link FailurePolicy#DENY} policy, while Redis fails. */
    FAILURE_POLICY("failure-policy"),

    /**
     * No limit: the call's key or plan is unlimited, so it was let through without asking any limiter
     * or storing anything.
     */
    UNLIMITED("unlimited");

    private final String tag;

    DecisionSource(String tag) {
        this.tag = tag;
    }

    /** How metrics and the actuator endpoint name it: the {@code backend} tag of {@code limiter.decisions}. */
    public String tag() {
        return tag;
    }
}
