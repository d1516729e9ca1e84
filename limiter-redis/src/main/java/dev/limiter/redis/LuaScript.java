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
 * An algorithm's Lua script: the shared prelude {@code lib.lua} followed by the algorithm's own
 * file, read once with its SHA1 computed once, so each decision is a plain EVALSHA (Spring Data
 * Redis falls back to EVAL when Redis lost the script).
 */
@SuppressWarnings("rawtypes")
final class LuaScript implements RedisScript<List> {

    private static final Map<Algorithm, LuaScript> SCRIPTS = new EnumMap<>(Algorithm.class);

    static {
        String prelude = read(Scripts.PRELUDE);
        for (Algorithm algorithm : Algorithm.values()) {
            SCRIPTS.put(algorithm, new LuaScript(prelude + "\n" + read(Scripts.location(algorithm))));
        }
    }

    private final String source;

    private final String sha1;

    private final byte[] sourceBytes;

    private final byte[] sha1Bytes;

    private LuaScript(String source) {
        this.source = source;
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

    /**
     * A script of its own text, such as one that runs an algorithm's script as a function
     * ({@link LeaseScript}); its SHA1 computed once.
     */
    static LuaScript of(String source) {
        return new LuaScript(source);
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
