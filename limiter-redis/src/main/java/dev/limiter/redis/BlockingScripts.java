package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Runs the limiters' scripts through Spring Data Redis, blocking: one EVALSHA per call, falling back
 * to EVAL within the same call when Redis answers NOSCRIPT; nothing else is ever retried, so a script
 * that timed out, and may have been applied, is never sent again.
 * <p>
 * On a {@link RedisTemplate} or {@link StringRedisTemplate} as Spring Data Redis ships them, the
 * script goes to the template's connection as it is, its key and arguments encoded once as UTF-8:
 * {@code RedisTemplate.execute(RedisScript, ...)} wraps the connection in a new JDK proxy on every
 * call, which cost about 15% of what a decision allocated and 1-2 µs of CPU per decision at 64
 * threads (BENCHMARKS.md). Any other {@link RedisOperations}, subclasses of the templates included
 * (they may override {@code execute}), gets each script through {@code execute(RedisScript, ...)}.
 */
final class BlockingScripts {

    private final RedisOperations<String, String> redis;

    /** The template whose connection runs the scripts directly; null to go through {@code execute(RedisScript, ...)}. */
    private final @Nullable RedisTemplate<?, ?> direct;

    BlockingScripts(RedisOperations<String, String> redis) {
        this.redis = redis;
        this.direct = (redis.getClass() == StringRedisTemplate.class || redis.getClass() == RedisTemplate.class)
                ? (RedisTemplate<?, ?>) redis : null;
    }

    /** Runs {@code script} on {@code key}; throws what Redis or the connection throws. */
    List<?> execute(LuaScript script, String key, Object[] args) {
        if (direct == null) {
            return redis.execute(script, List.of(key), args);
        }
        byte[][] encoded = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            encoded[i] = ((String) args[i]).getBytes(StandardCharsets.UTF_8);
        }
        return execute(script, key, encoded);
    }

    /**
     * Runs a script of {@code codec}'s configuration (a decision or a refund) on {@code key}, with the
     * arguments of {@link ScriptCodec#arguments}; throws what Redis or the connection throws. On a
     * direct template, the arguments every call of the configuration shares are encoded once, not per call.
     */
    List<?> execute(LuaScript script, String key, ScriptCodec codec, @Nullable Long nowMicros, long permits) {
        if (direct == null) {
            return redis.execute(script, List.of(key), (Object[]) codec.arguments(nowMicros, permits));
        }
        return execute(script, key, codec.argumentBytes(nowMicros, permits));
    }

    /**
     * Runs a decision script of {@code codec}'s configuration on {@code key}, with {@code holdKey} as its
     * KEYS[2] (decision-prelude.lua), with the arguments of {@link ScriptCodec#arguments}.
     */
    List<?> execute(LuaScript script, String key, String holdKey, ScriptCodec codec, @Nullable Long nowMicros, long permits) {
        if (direct == null) {
            return redis.execute(script, List.of(key, holdKey), (Object[]) codec.arguments(nowMicros, permits));
        }
        byte[][] args = codec.argumentBytes(nowMicros, permits);
        byte[][] keysAndArgs = new byte[2 + args.length][];
        keysAndArgs[0] = key.getBytes(StandardCharsets.UTF_8);
        keysAndArgs[1] = holdKey.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(args, 0, keysAndArgs, 2, args.length);
        return execute(script, 2, keysAndArgs);
    }

    /** Runs {@code script} on {@code key} with {@code args}, UTF-8 encoded, on the direct template's connection. */
    private List<?> execute(LuaScript script, String key, byte[][] args) {
        byte[][] keysAndArgs = new byte[1 + args.length][];
        keysAndArgs[0] = key.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(args, 0, keysAndArgs, 1, args.length);
        return execute(script, 1, keysAndArgs);
    }

    /**
     * Runs {@code script} on the first {@code keys} of {@code keysAndArgs}, UTF-8 encoded, the rest
     * being its arguments; throws what Redis or the connection throws. Reads the arrays, never
     * modifies them.
     */
    List<?> execute(LuaScript script, int keys, byte[][] keysAndArgs) {
        RedisTemplate<?, ?> template = direct;
        if (template == null) {
            List<String> keyList = new ArrayList<>(keys);
            Object[] args = new Object[keysAndArgs.length - keys];
            for (int i = 0; i < keysAndArgs.length; i++) {
                String text = new String(keysAndArgs[i], StandardCharsets.UTF_8);
                if (i < keys) {
                    keyList.add(text);
                }
                else {
                    args[i - keys] = text;
                }
            }
            return redis.execute(script, keyList, args);
        }
        // Exposed: the template hands over its connection as it is, without a proxy around it.
        return template.execute((RedisCallback<List<?>>) connection -> run(connection, script, keys, keysAndArgs), true);
    }

    /** Whether this Redis is a cluster, which needs every key of one script in one slot; asks Redis. */
    boolean isCluster() {
        Boolean cluster = redis.execute((RedisCallback<Boolean>) connection -> connection instanceof RedisClusterConnection);
        return Boolean.TRUE.equals(cluster);
    }

    private static List<?> run(RedisConnection connection, LuaScript script, int keys, byte[][] keysAndArgs) {
        try {
            return connection.scriptingCommands().evalSha(script.sha1Bytes(), ReturnType.MULTI, keys, keysAndArgs);
        }
        catch (RuntimeException ex) {
            if (!isNoScript(ex)) {
                throw ex;
            }
            // Redis lost the script (restart, SCRIPT FLUSH, failover): send it with the call, and it is cached again.
            return connection.scriptingCommands().eval(script.sourceBytes(), ReturnType.MULTI, keys, keysAndArgs);
        }
    }

    /** Whether Redis answered NOSCRIPT, somewhere in the cause chain of {@code failure}. */
    static boolean isNoScript(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && message.contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "BlockingScripts[" + redis + ((direct != null) ? ", direct]" : "]");
    }
}
