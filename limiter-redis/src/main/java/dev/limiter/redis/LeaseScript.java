package dev.limiter.redis;

import java.util.EnumMap;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.internal.algorithm.Scripts;

/**
 * The lease script of each bucket algorithm: {@code lease.lua}, which includes the algorithm's own
 * decision script, unchanged, as a Lua function that it calls twice, once for the caller's permits and
 * once for the permits leased; assembled by {@link Scripts} as the decision scripts are. So the
 * algorithm's arithmetic lives in its script alone, whatever becomes of it, and a lease costs the same
 * single round trip as a decision.
 */
final class LeaseScript {

    /** Where the text that calls the algorithm twice lies on the class path. */
    static final String LOCATION = "/dev/limiter/redis/lease.lua";

    private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);

    static {
        for (Algorithm algorithm : Algorithm.values()) {
            if (algorithm.isBucket()) {
                SCRIPTS.put(algorithm, LuaScript.of(Scripts.assemble(LOCATION, algorithm)));
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
