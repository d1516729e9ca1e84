package dev.limiter.autoconfigure.actuate;

import java.util.Map;
import java.util.Set;

/**
 * The quota of one key in every plan of a limiter, asked without a plan: each plan counts its keys
 * apart, and which plan a call falls under is decided per call. {@code plans} has each plan with
 * limits, {@code unlimitedPlans} the plans that never count a key.
 */
public record PlanQuotasDescriptor(String limiter, String key, Map<String, PlanQuotaDescriptor> plans, Set<String> unlimitedPlans)
        implements KeyQuotaDescriptor {
}
