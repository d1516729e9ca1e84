package dev.limiter.redis;

import java.util.EnumMap;
import java.util.Map;

import dev.limiter.Algorithm;

/**
 * The lease script of each bucket algorithm: the algorithm's own script, unchanged, wrapped in a Lua
 * function that {@code lease.lua} calls twice, once for the caller's permits and once for the permits
 * leased. So the algorithm's arithmetic lives in its script alone, whatever becomes of it, and a
 * lease costs the same single round trip as a decision.
 */
final class LeaseScript {

    /** Where the text that calls the algorithm twice lies on the classpath. */
    static final String LOCATION = "dev/limiter/redis/lease.lua";

    private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);

    static {
        String lease = LuaScript.read(LOCATION);
        for (Algorithm algorithm : Algorithm.values()) {
            if (algorithm.isBucket()) {
                SCRIPTS.put(algorithm, LuaScript.of("local algorithm = " + LuaScript.asFunction(LuaScript.of(algorithm).getScriptAsString()) + "\n" + lease));
            }
        }
    }

    private LeaseScript() {
    }

    /** The lease script of {@code algorithm}, a bucket algorithm. */
    static LuaScript of(Algorithm algorithm) {
        LuaScript script = SCRIPTS.get(algorithm);
        if (script == null) {
            throw new IllegalArgumentException("Only token-bucket, leaky-bucket and gcra lease, not " + algorithm);
        }
        return script;
    }
}
