package dev.limiter.autoconfigure.actuate;

/** The quota of a key in one plan: the plan's limit, what remains, when it is whole again, and what answered. */
public record PlanQuotaDescriptor(long limit, long remaining, String resetAfter, String source) {
}
