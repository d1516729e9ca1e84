package dev.limiter;

import java.util.Locale;

/**
 * What a retune did to one limiter: the configuration it decided by, the one it decides by now, and
 * whether each key kept its state ({@link RateLimiterConfig#keepsStateOf}).
 *
 * @param limiter the limiter's name
 * @param previous the configuration before
 * @param current the configuration now
 */
public record Retuning(String limiter, RateLimiterConfig previous, RateLimiterConfig current) {

    /** Whether the configuration changed at all. */
    public boolean changed() {
        return !previous.equals(current);
    }

    /** Whether each key continues from its state; false when keys start fresh. */
    public boolean stateKept() {
        return current.keepsStateOf(previous);
    }

    /**
     * What became of the keys' state, and why, for logs and operators: such as "keys keep their state
     * (on-retune: keep)" or "keys start fresh: on-retune is keep, but the windows changed ([PT10S] to
     * [PT1M])".
     */
    public String state() {
        if (!changed()) {
            return "unchanged";
        }
        if (stateKept()) {
            return "keys keep their state (on-retune: " + name(current.onRetune()) + ")";
        }
        if (previous.onRetune() != current.onRetune()) {
            return "keys start fresh: on-retune changed from " + name(previous.onRetune()) + " to " + name(current.onRetune());
        }
        if (current.onRetune() == RetunePolicy.RESET) {
            return "keys start fresh (on-retune: reset)";
        }
        String changed;
        if (previous.algorithm() != current.algorithm()) {
            changed = "the algorithm changed (" + previous.algorithm() + " to " + current.algorithm() + ")";
        }
        else if (!previous.windows().equals(current.windows())) {
            changed = "the windows changed (" + previous.windows() + " to " + current.windows() + ")";
        }
        else {
            changed = "the sub-windows changed (" + previous.subWindows() + " to " + current.subWindows() + ")";
        }
        return "keys start fresh: on-retune is keep, but " + changed + ", so their state has another shape";
    }

    private static String name(RetunePolicy policy) {
        return policy.name().toLowerCase(Locale.ROOT);
    }
}
