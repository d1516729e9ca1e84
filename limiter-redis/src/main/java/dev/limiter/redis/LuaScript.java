package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.internal.algorithm.Scripts;

import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * An algorithm's Lua script as {@link Scripts} assembles it from its resources, with its SHA1 computed
 * once, so each decision is a plain EVALSHA (Spring Data Redis falls back to EVAL when Redis lost the
 * script); its refund and charge scripts alike. Also the batch script ({@code batch.lua}), which decides many keys
 * in one call by the very same texts, assembled by the same means.
 */
@SuppressWarnings("rawtypes")
final class LuaScript implements RedisScript<List> {

    private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);

    private static final Map<Algorithm, LuaScript> REFUNDS = new EnumMap<>(Algorithm.class);

    private static final Map<Algorithm, LuaScript> CHARGES = new EnumMap<>(Algorithm.class);

    /** Where the batch script lies on the class path; it includes every algorithm's decision script. */
    static final String BATCH_LOCATION = "/dev/limiter/redis/batch.lua";

    private static final LuaScript BATCH;

    static {
        for (Algorithm algorithm : Algorithm.values()) {
            SCRIPTS.put(algorithm, new LuaScript(Scripts.decision(algorithm), batchIndex(algorithm)));
            REFUNDS.put(algorithm, new LuaScript(Scripts.refund(algorithm), 0));
            CHARGES.put(algorithm, new LuaScript(Scripts.charge(algorithm), 0));
        }
        // batch.lua names no algorithm by {algorithm}: any one assembles it.
        BATCH = new LuaScript(Scripts.assemble(BATCH_LOCATION, Algorithm.FIXED_WINDOW), 0);
    }

    private final String source;

    /**
     * This algorithm's index in the batch script, which batch.lua gives its function (its place in
     * {@link Algorithm}); 0 for scripts never batched (the batch script, refunds).
     */
    private final int batchIndex;

    private final String sha1;

    private final byte[] sourceBytes;

    private final byte[] sha1Bytes;

    private LuaScript(String source, int batchIndex) {
        this.source = source;
        this.batchIndex = batchIndex;
        this.sha1 = DigestUtils.sha1DigestAsHex(source);
        this.sourceBytes = source.getBytes(StandardCharsets.UTF_8);
        this.sha1Bytes = sha1.getBytes(StandardCharsets.US_ASCII);
    }

    static LuaScript of(Algorithm algorithm) {
        LuaScript script = SCRIPTS.get(algorithm);
        if (script == null) {
            throw new IllegalStateException("No script for " + algorithm);
        }
        return script;
    }

    /** The script giving permits back to a key of {@code algorithm}: same arguments and reply as its decisions. */
    static LuaScript refundOf(Algorithm algorithm) {
        LuaScript script = REFUNDS.get(algorithm);
        if (script == null) {
            throw new IllegalStateException("No refund script for " + algorithm);
        }
        return script;
    }

    /**
     * The script taking permits from a key of {@code algorithm} whatever its limits say ({@code charge.lua}):
     * its decisions' arguments but the third, the most permits one decision takes; the same reply.
     */
    static LuaScript chargeOf(Algorithm algorithm) {
        LuaScript script = CHARGES.get(algorithm);
        if (script == null) {
            throw new IllegalStateException("No charge script for " + algorithm);
        }
        return script;
    }

    /** The script that decides many keys in one call ({@code batch.lua}). */
    static LuaScript batch() {
        return BATCH;
    }

    private static int batchIndex(Algorithm algorithm) {
        return algorithm.ordinal() + 1;
    }

    /** This algorithm's index in {@link #batch()}'s arguments. */
    int batchIndex() {
        return batchIndex;
    }

    /**
     * A script of its own text, such as the lease script of an algorithm ({@link LeaseScript}); its SHA1
     * computed once.
     */
    static LuaScript of(String source) {
        return new LuaScript(source, 0);
    }

    /** The SHA1 as EVALSHA sends it. Never modified by callers. */
    byte[] sha1Bytes() {
        return sha1Bytes;
    }

    /** The source as EVAL sends it. Never modified by callers. */
    byte[] sourceBytes() {
        return sourceBytes;
    }

    @Override
    public String getSha1() {
        return sha1;
    }

    @Override
    public Class<List> getResultType() {
        return List.class;
    }

    @Override
    public String getScriptAsString() {
        return source;
    }
}
