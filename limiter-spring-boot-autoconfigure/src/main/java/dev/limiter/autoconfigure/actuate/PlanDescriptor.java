package dev.limiter.autoconfigure.actuate;

import java.util.List;

/** One plan of a limiter: its limits, or none when it is unlimited. */
public record PlanDescriptor(List<LimitDescriptor> limits, boolean unlimited) {
}
