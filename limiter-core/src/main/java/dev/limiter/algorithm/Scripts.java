package dev.limiter.algorithm;

import dev.limiter.Algorithm;

/**
 * Where the algorithms' Lua scripts lie on the classpath, beside their twins: for backends that run them
 * in Redis. Each script is sent after the shared prelude.
 */
public final class Scripts {

    /** The arithmetic and reply every script shares ({@code lib.lua}). */
    public static final String PRELUDE = "dev/limiter/algorithm/lib.lua";

    private Scripts() {
    }

    /** Classpath location of {@code algorithm}'s own script, such as {@code dev/limiter/algorithm/gcra.lua}. */
    public static String location(Algorithm algorithm) {
        return "dev/limiter/algorithm/" + algorithm.configName() + ".lua";
    }

    /**
     * Classpath location of {@code algorithm}'s refund script, which gives permits back to a key, such
     * as {@code dev/limiter/algorithm/gcra-refund.lua}; sent after the same prelude.
     */
    public static String refundLocation(Algorithm algorithm) {
        return "dev/limiter/algorithm/" + algorithm.configName() + "-refund.lua";
    }
}
