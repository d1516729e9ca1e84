package dev.limiter.benchmarks;

import java.util.List;

import dev.limiter.RateLimiter;
import dev.limiter.internal.algorithm.Scripts;

import org.springframework.data.redis.core.script.DigestUtils;

/**
 * The EVALSHA a Redis limiter sends for one key, as words of a command line, so that
 * {@code redis-benchmark} can run exactly the same call: the script's text from {@link Scripts}, the
 * assembler the Redis limiters load their scripts from, and the command as the limiter sent it, read
 * back from Redis' slow log. So the benchmark needs nothing of limiter-redis but its public API.
 *
 * @param source the script's text (to load it)
 * @param sha1 its SHA1, the first argument of EVALSHA
 * @param command EVALSHA, the SHA1, 1, the Redis key, then ARGV as {@code docs/algorithms.md} states
 *     it: empty time (Redis TIME), permits, max-wait, algorithm parameter, then L, W, B per limit
 */
record ScriptCall(String source, String sha1, List<String> command) {

    /**
     * The call {@code limiter} makes for {@code key} asking one permit, taken from {@code redis} as the
     * limiter sends it; the permit is taken.
     *
     * @param limiter a limiter from a {@code RedisRateLimiterFactory} of {@code redis}
     */
    static ScriptCall of(RateLimiter limiter, String key, BenchRedis redis) {
        String source = Scripts.decision(limiter.config().algorithm());
        String sha1 = DigestUtils.sha1DigestAsHex(source);
        redis.scriptLoad(source);
        List<List<String>> sent = redis.commandsOf(() -> limiter.tryAcquire(key), "EVALSHA");
        // Other scripts (the instances' heartbeat) may run meanwhile.
        List<List<String>> decisions = sent.stream().filter(command -> command.get(1).equals(sha1)).toList();
        if (decisions.size() != 1) {
            throw new IllegalStateException("The limiter did not send the script Scripts assembles for " + limiter.config().algorithm()
                    + " (SHA1 " + sha1 + ") once, but " + sent);
        }
        return new ScriptCall(source, sha1, decisions.get(0));
    }
}
