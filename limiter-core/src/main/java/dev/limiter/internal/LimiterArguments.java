package dev.limiter.internal;

/**
 * Checks the arguments every backend takes alike, so that a name, a plan or a request wrong on one
 * backend is wrong, with the same message, on every other.
 */
public final class LimiterArguments {

    private LimiterArguments() {
    }

    /**
     * Checks a limiter name, which every backend puts into its keys: 1 to 100 letters, digits, '.', '-' or
     * '_', starting with a letter or digit.
     *
     * @return the name
     * @throws IllegalArgumentException naming the bad name and what a name may hold
     */
    public static String checkName(String name) {
        return checked(name, "limiter name");
    }

    /**
     * Checks a plan name, which backends put into keys beside the limiter name: the same characters as
     * a limiter name, none of which a backend uses to separate the two.
     *
     * @return the plan
     * @throws IllegalArgumentException naming the bad plan and what a plan name may hold
     */
    public static String checkPlan(String plan) {
        return checked(plan, "plan name");
    }

    /** {@code text}, if it is a limiter or plan name: what a YAML map key and a Redis key both take without quoting. */
    private static String checked(String text, String what) {
        if (text == null || !text.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            throw new IllegalArgumentException("Invalid " + what + " '" + text + "': use 1 to 100 letters, digits, '.', '-' or '_', "
                    + "starting with a letter or digit");
        }
        return text;
    }

    /** Checks the permits asked of any limiter: at least 1. */
    public static void checkPermits(long permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1 but was " + permits);
        }
    }

    /** Checks a key given to any limiter: not null. */
    public static void checkKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
    }

    /**
     * Checks a settlement: the permits a call reserved (its estimate, at least 1, as any permits asked)
     * and its actual cost (0 or more).
     */
    public static void checkSettlement(long reserved, long actual) {
        if (reserved < 1) {
            throw new IllegalArgumentException("reserved permits must be at least 1 (the estimate the call was admitted for) but were "
                    + reserved);
        }
        if (actual < 0) {
            throw new IllegalArgumentException("actual cost must be 0 or more but was " + actual);
        }
    }
}
