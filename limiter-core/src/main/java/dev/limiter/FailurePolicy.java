package dev.limiter;

/** What a Redis limiter decides while Redis fails or is too slow to answer. */
public enum FailurePolicy {

    /**
     * The same algorithm in this process, with each limit divided by the number of instances
     * expected to share it, so that together they admit about the configured rate.
     */
    LOCAL,

    /** Admit every call (fail open): availability over limiting. */
    ALLOW,

    /** Reject every call (fail closed): limiting over availability. */
    DENY
}
