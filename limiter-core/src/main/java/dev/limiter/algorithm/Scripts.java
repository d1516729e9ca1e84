package dev.limiter.algorithm;

import dev.limiter.Algorithm;

/**
 * Where the algorithms' Lua scripts lie on the classpath, beside their twins: for backends that run them
 * in Redis. Each script is sent after {@link #DECISION_PRELUDE}; a refund script also after {@link #PRELUDE}.
 */
public final class Scripts {

    /** What the refund scripts add to {@link #DECISION_PRELUDE}: the limits as a table and the reply ({@code lib.lua}). */
    public static final String PRELUDE = "dev/limiter/algorithm/lib.lua";

    /**
     * The lean prelude of the decision scripts ({@code decide.lua}): time, arguments and arithmetic only,
     * no tables or closures, as Redis pays for those on every call (docs/script-costs.md).
     */
    public static final String DECISION_PRELUDE = "dev/limiter/algorithm/decide.lua";

    private Scripts() {
    }

    /** Classpath location of {@code algorithm}'s own script, such as {@code dev/limiter/algorithm/gcra.lua}. */
    public static String location(Algorithm algorithm) {
        return "dev/limiter/algorithm/" + algorithm.configName() + ".lua";
    }

    /**
     * Classpath location of {@code algorithm}'s refund script, which gives permits back to a key, such
     * as {@code dev/limiter/algorithm/gcra-refund.lua}; sent after {@link #DECISION_PRELUDE} and {@link #PRELUDE}.
     */
    public static String refundLocation(Algorithm algorithm) {
        return "dev/limiter/algorithm/" + algorithm.configName() + "-refund.lua";
    }
}
