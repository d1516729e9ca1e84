package dev.limiter.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;

/**
 * The EVALSHA a Redis limiter sends for one key, as words of a command line, so that
 * {@code redis-benchmark} can run exactly the same call. Lives in Limiter's package, beside the
 * benchmarks only, to read the script, key and arguments that are not public API.
 *
 * @param source the script's text (to load it)
 * @param sha1 its SHA1, the first argument of EVALSHA
 * @param command EVALSHA, the SHA1, 1, the Redis key, then ARGV as {@code docs/algorithms.md} states
 *     it: empty time (Redis TIME), permits, max-wait, algorithm parameter, then L, W, B per limit
 */
public record ScriptCall(String source, String sha1, List<String> command) {

    /**
     * The call {@code limiter} makes for {@code key} asking one permit.
     *
     * @param limiter a limiter from a {@link RedisRateLimiterFactory}
     */
    public static ScriptCall of(RateLimiter limiter, String key) {
        if (!(limiter instanceof RedisRateLimiter redis)) {
            throw new IllegalArgumentException("not a Redis limiter: " + limiter);
        }
        RateLimiterConfig config = limiter.config();
        LuaScript script = LuaScript.of(config.algorithm());
        List<String> command = new ArrayList<>(List.of("EVALSHA", script.getSha1(), "1", redis.redisKey(key)));
        // The same arguments the limiter sends, time left to Redis.
        command.addAll(Arrays.asList(ScriptCodec.of(config).arguments(null, 1)));
        return new ScriptCall(script.getScriptAsString(), script.getSha1(), List.copyOf(command));
    }
}
