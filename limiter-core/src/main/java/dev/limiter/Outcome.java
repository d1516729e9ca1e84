package dev.limiter;

/** What became of one limited call; the tag value is the {@code outcome} of metric {@code limiter.decisions}. */
public enum Outcome {

    /** The limiter admitted the call. */
    ALLOWED("allowed"),

    /** The limiter rejected the call: it failed with RateLimitExceededException. */
    REJECTED("rejected"),

    /** The limiter rejected the call, but it proceeded because the limiter is in shadow mode. */
    SHADOW_REJECTED("shadow_rejected"),

    /** The limiter rejected the call and its fallback method answered instead. */
    FALLBACK("fallback"),

    /** The call could not be decided, such as when its key expression failed; it failed too. */
    ERROR("error");

    private final String tag;

    Outcome(String tag) {
        this.tag = tag;
    }

    /** The value of the {@code outcome} tag. */
    public String tag() {
        return tag;
    }
}
