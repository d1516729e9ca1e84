package dev.limiter.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.algorithm.Scripts;

import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * An algorithm's Lua script: the decision prelude {@code decide.lua} followed by the algorithm's own
 * file (a refund script follows both and {@code lib.lua}), read once with its SHA1 computed once, so each
 * decision is a plain EVALSHA (Spring Data Redis falls back to EVAL when Redis lost the script). Also
 * the batch script ({@code batch.lua}), which decides many keys in one call by the very same texts.
 */
@SuppressWarnings("rawtypes")
final class LuaScript implements RedisScript<List> {

    private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);

    private static final Map<Algorithm, LuaScript> REFUNDS = new EnumMap<>(Algorithm.class);

    /** Where batch.lua takes the algorithms' functions. */
    private static final String ALGORITHMS = "--[[ algorithms ]]";

    private static final LuaScript BATCH;

    static {
        String decisionPrelude = read(Scripts.DECISION_PRELUDE);
        String prelude = read(Scripts.PRELUDE);
        StringBuilder functions = new StringBuilder();
        for (Algorithm algorithm : Algorithm.values()) {
            String script = decisionPrelude + "\n" + read(Scripts.location(algorithm));
            SCRIPTS.put(algorithm, new LuaScript(script, batchIndex(algorithm)));
            REFUNDS.put(algorithm, new LuaScript(decisionPrelude + "\n" + prelude + "\n" + read(Scripts.refundLocation(algorithm)), 0));
            // The text as it is, read at run time: a change of an algorithm's script reaches the batch
            // script with it.
            functions.append("algorithms[").append(batchIndex(algorithm)).append("] = ").append(asFunction(script)).append('\n');
        }
        String batch = read("dev/limiter/redis/batch.lua");
        if (!batch.contains(ALGORITHMS)) {
            throw new IllegalStateException("batch.lua has no line " + ALGORITHMS);
        }
        BATCH = new LuaScript(batch.replace(ALGORITHMS, functions), 0);
    }

    private final String source;

    /** This algorithm's index in the batch script; 0 for scripts never batched (the batch script, refunds). */
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
     * A script of its own text, such as one that runs an algorithm's script as a function
     * ({@link LeaseScript}); its SHA1 computed once.
     */
    static LuaScript of(String source) {
        return new LuaScript(source, 0);
    }

    /**
     * {@code script}, a whole script that reads KEYS and ARGV and returns its reply, as an anonymous Lua
     * function of (KEYS, ARGV): its parameters shadow the globals, so the script reads the key and
     * arguments it is given, and its {@code return} becomes the function's. The batch and lease scripts
     * run the algorithms' scripts this way, unchanged.
     */
    static String asFunction(String script) {
        return "function(KEYS, ARGV)\n" + script + "\nend";
    }

    /** A classpath resource's text. */
    static String read(String location) {
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(location)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + location + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot read Lua script " + location, ex);
        }
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
