package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.internal.algorithm.Model;
import dev.limiter.property.ExpiredInRealTime;
import dev.limiter.property.Implementation;
import dev.limiter.property.Subject;
import dev.limiter.test.VirtualClock;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The three implementations of every algorithm, as the property harness compares them: the
 * reference model (first, the reference), the in-memory twin and the Redis script, each on its own
 * virtual clock set to the time of every request.
 */
final class ComparedImplementations {

    /** Limiter name used by every run; each Redis run has its own key prefix. */
    private static final String NAME = "prop";

    private ComparedImplementations() {
    }

    /** Model, in-memory twin, Redis script. */
    static List<Implementation> all() {
        return List.of(model(), memory(), redis());
    }

    static Implementation model() {
        return new Implementation("model", config -> Model.of(config)::tryAcquire);
    }

    static Implementation memory() {
        return new Implementation("memory", config -> {
            VirtualClock clock = new VirtualClock();
            RateLimiter limiter = Backend.MEMORY.factory(clock, null).create(NAME, config);
            return (key, permits, now) -> {
                clock.set(now);
                return limiter.tryAcquire(key, permits);
            };
        });
    }

    static Implementation redis() {
        return new Implementation("redis", RedisSubject::new);
    }

    /**
     * A Redis limiter whose keys expire on the virtual clock instead of in real time. Redis TTLs run
     * in real time while the virtual clock jumps: a state meant to last 300 us gets a 1 ms TTL and
     * could vanish before a request 100 virtual us later. So every decision runs in one MULTI/EXEC
     * with a second script that reads the TTL the first one set and lengthens a short one: nothing
     * expires in between. The subject checks that TTL (reset-after in whole milliseconds, rounded
     * up: the spec's contract) and deletes the key itself once the virtual clock passes the reset
     * time, which is when the spec lets the key go.
     */
    static final class RedisSubject implements Subject {

        /** TTLs shorter than this are lengthened to it, far longer than any run takes. */
        static final long KEEP_MILLIS = 600_000;

        private final StringRedisTemplate redis = TestRedisSupport.shared();

        private final KeepingTemplate keeping = new KeepingTemplate(redis);

        private final VirtualClock clock = new VirtualClock();

        private final RedisRateLimiter limiter;

        /** Virtual time at which each user key's state expires. */
        private final Map<String, Long> expiresAt = new HashMap<>();

        private final Set<String> keys = new HashSet<>();

        RedisSubject(RateLimiterConfig config) {
            this.limiter = (RedisRateLimiter) RedisRateLimiterFactory.builder(keeping).keyPrefix(TestRedisSupport.uniquePrefix())
                .clock(clock).build()
                .create(NAME, config);
        }

        @Override
        public Decision tryAcquire(String key, long permits, long now) {
            String redisKey = limiter.redisKey(key);
            keys.add(redisKey);
            Long expires = expiresAt.get(key);
            if (expires != null && now >= expires) {
                redis.delete(redisKey);
                expiresAt.remove(key);
            }
            clock.set(now);
            Decision decision = limiter.tryAcquire(key, permits);
            if (decision.source() != DecisionSource.REDIS) {
                // The failure policy's answer says nothing of the script: name it instead of a disagreement.
                throw new AssertionError("Redis did not decide (" + decision.source() + "): a call to Redis failed");
            }
            long ttl = keeping.ttlBeforeKeeping;
            long resetAfter = decision.resetAfter().toNanos() / 1_000;
            long expectedTtl = Math.max(1, (resetAfter + 999) / 1_000);
            if (ttl == -2 && resetAfter > 0) {
                // A TTL of a millisecond or two can run out in real time between the two scripts of the
                // MULTI/EXEC on a busy machine; a longer one cannot, so its loss is a real fault.
                if (expectedTtl <= 2) {
                    throw new ExpiredInRealTime("reset-after " + resetAfter + " us: Redis dropped the " + expectedTtl + " ms key in real time");
                }
                throw new AssertionError("reset-after is " + resetAfter + " us but the Redis key is gone");
            }
            if (decision.allowed()) {
                if (ttl == -1) {
                    throw new AssertionError("the Redis key has no TTL after an allowed request");
                }
                // The TTL cannot exceed what the script set; it may be less by the real time Redis took
                // between the two scripts, a few ms on a busy machine: a second of slack still catches units.
                if (ttl > expectedTtl || ttl < expectedTtl - 1_000) {
                    throw new AssertionError("the Redis key's PTTL is " + ttl + " ms after an allowed request; reset-after " + resetAfter
                            + " us wants " + expectedTtl + " ms");
                }
                expiresAt.put(key, now + resetAfter);
            }
            return decision;
        }

        @Override
        public void close() {
            redis.delete(keys);
            keeping.connection.close();
        }
    }

    /**
     * Runs each script of a limiter in MULTI/EXEC together with {@link #KEEP}, on a connection of its
     * own, and remembers the PTTL that KEEP saw.
     */
    private static final class KeepingTemplate extends StringRedisTemplate {

        /** Returns the PTTL of KEYS[1], and lengthens it to ARGV[1] ms if it is shorter. */
        private static final String KEEP = """
                local ttl = redis.call('PTTL', KEYS[1])
                if ttl >= 0 and ttl < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
                return ttl""";

        final RedisConnection connection;

        private final Set<String> loaded = new HashSet<>();

        private final String keepSha;

        long ttlBeforeKeeping;

        KeepingTemplate(StringRedisTemplate shared) {
            super(shared.getRequiredConnectionFactory());
            this.connection = getRequiredConnectionFactory().getConnection();
            this.keepSha = load(KEEP);
        }

        private String load(String source) {
            return connection.scriptingCommands().scriptLoad(source.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T execute(RedisScript<T> script, List<String> keys, Object... args) {
            if (loaded.add(script.getSha1())) {
                load(script.getScriptAsString());
            }
            byte[][] keysAndArgs = new byte[keys.size() + args.length][];
            for (int i = 0; i < keys.size(); i++) {
                keysAndArgs[i] = bytes(keys.get(i));
            }
            for (int i = 0; i < args.length; i++) {
                keysAndArgs[keys.size() + i] = bytes((String) args[i]);
            }
            connection.multi();
            connection.scriptingCommands().evalSha(script.getSha1(), ReturnType.fromJavaType(script.getResultType()), keys.size(), keysAndArgs);
            connection.scriptingCommands().evalSha(keepSha, ReturnType.INTEGER, 1, bytes(keys.get(0)), bytes(Long.toString(RedisSubject.KEEP_MILLIS)));
            List<Object> replies = connection.exec();
            ttlBeforeKeeping = (Long) replies.get(1);
            return (T) replies.get(0);
        }

        private static byte[] bytes(String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
    }
}
