package dev.limiter.property;

/**
 * Seeds of the random scenarios: a fixed list, so CI runs the same scenarios every time, or the one
 * given with {@code -Dlimiter.property.seed=<n>} to replay a failure.
 */
public final class Seeds {

    public static final String PROPERTY = "limiter.property.seed";

    private Seeds() {
    }

    /** The seed named by {@value #PROPERTY} if set, else {@code fixed}. */
    public static long[] orReplay(long... fixed) {
        String replay = System.getProperty(PROPERTY);
        if (replay == null || replay.isBlank()) {
            return fixed.clone();
        }
        return new long[] { Long.parseLong(replay.trim()) };
    }

    /** {@code count} fixed seeds, 1 to {@code count}. */
    public static long[] first(int count) {
        return orReplay(java.util.stream.LongStream.rangeClosed(1, count).toArray());
    }
}
