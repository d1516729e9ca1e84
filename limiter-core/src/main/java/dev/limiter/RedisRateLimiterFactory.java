package dev.limiter;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

import org.springframework.data.redis.core.ReactiveRedisOperations;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;

/**
 * Creates limiters whose state lives in Redis, shared by every instance of the application.
 * Limiters of one factory share one view of Redis' availability: after a failure they follow their
 * {@link FailurePolicy} at once, and resume when a background probe finds Redis answering.
 * Immutable: the {@code with...} methods return a changed copy.
 */
public final class RedisRateLimiterFactory implements RateLimiterFactory {

    /** Key prefix used unless another is given. */
    public static final String DEFAULT_KEY_PREFIX = "limiter";

    /** How often a failed Redis is probed unless configured. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(250);

    /** What the factory was built with; each {@code with...} copies and changes it. */
    private static final class Settings implements Cloneable {

        RedisOperations<String, String> redis;

        /** The same Redis through the reactive API, for asynchronous decisions; null to decide them blocking. */
        ReactiveScripts reactive;

        String keyPrefix = DEFAULT_KEY_PREFIX;

        LimiterClock clock;

        FailurePolicy onFailure = FailurePolicy.LOCAL;

        InMemoryRateLimiterFactory local;

        int expectedInstances = 1;

        Duration probeInterval = DEFAULT_PROBE_INTERVAL;

        Runnable recoveryAction;

        DecisionListener listener = DecisionListener.NONE;

        /** Most keys the local deny cache holds; 0 when it is off. */
        int denyCacheKeys;

        Settings copy() {
            try {
                return (Settings) clone();
            }
            catch (CloneNotSupportedException ex) {
                throw new IllegalStateException(ex);
            }
        }
    }

    private final Settings settings;

    private final InMemoryRateLimiterFactory local;

    private final RedisAvailability availability;

    private final LocalDenyCache denyCache;

    /**
     * Limiters on {@code redis} that decide in memory while it fails ({@link FailurePolicy#LOCAL},
     * one instance expected).
     *
     * @param redis operations with String keys and values, such as a {@code StringRedisTemplate};
     *     give it a short command timeout, since a decision waits at most that long for Redis
     */
    public RedisRateLimiterFactory(RedisOperations<String, String> redis) {
        this(settings(redis));
    }

    private static Settings settings(RedisOperations<String, String> redis) {
        Settings settings = new Settings();
        settings.redis = redis;
        return settings;
    }

    private RedisRateLimiterFactory(Settings settings) {
        if (settings.redis == null) {
            throw new IllegalArgumentException("redis must not be null");
        }
        if (settings.onFailure == null) {
            throw new IllegalArgumentException("the failure policy must not be null");
        }
        if (settings.expectedInstances < 1) {
            throw new IllegalArgumentException("expected instances must be at least 1 but was " + settings.expectedInstances);
        }
        if (settings.probeInterval == null || settings.probeInterval.isNegative() || settings.probeInterval.isZero()) {
            throw new IllegalArgumentException("the probe interval must be positive but was " + settings.probeInterval);
        }
        if (settings.denyCacheKeys < 0) {
            throw new IllegalArgumentException("the local deny cache must hold at least 1 key but maxKeys was " + settings.denyCacheKeys);
        }
        RedisKeys.checkPrefix(settings.keyPrefix);
        this.settings = settings;
        this.local = (settings.local != null) ? settings.local
                : new InMemoryRateLimiterFactory((settings.clock != null) ? settings.clock : LimiterClock.system(),
                        InMemoryRateLimiterFactory.DEFAULT_MAX_KEYS);
        this.availability = new RedisAvailability(settings.redis, settings.probeInterval, settings.recoveryAction);
        this.denyCache = (settings.denyCacheKeys > 0) ? new LocalDenyCache(settings.denyCacheKeys, settings.clock) : null;
    }

    /** A copy of this factory with {@code change} applied to its settings. */
    private RedisRateLimiterFactory with(Consumer<Settings> change) {
        Settings changed = settings.copy();
        change.accept(changed);
        return new RedisRateLimiterFactory(changed);
    }

    /** Keys start with {@code keyPrefix + ":"}; the prefix must not contain '{' or '}'. */
    public RedisRateLimiterFactory withKeyPrefix(String keyPrefix) {
        return with((s) -> s.keyPrefix = keyPrefix);
    }

    /**
     * Passes time from {@code clock} to the scripts instead of reading Redis TIME. Meant for tests
     * that drive time; in production, Redis time keeps instances with skewed clocks in agreement.
     */
    public RedisRateLimiterFactory withClock(LimiterClock clock) {
        return with((s) -> s.clock = clock);
    }

    /**
     * What limiters decide while Redis fails, unless their configuration says otherwise.
     *
     * @param policy the default policy
     * @param local the in-memory limiters {@link FailurePolicy#LOCAL} uses
     * @param expectedInstances how many instances share each limit: locally, each admits its share
     */
    public RedisRateLimiterFactory withFailurePolicy(FailurePolicy policy, InMemoryRateLimiterFactory local, int expectedInstances) {
        return with((s) -> {
            s.onFailure = policy;
            s.local = local;
            s.expectedInstances = expectedInstances;
        });
    }

    /** How often a failed Redis is probed to find out whether it answers again. */
    public RedisRateLimiterFactory withProbeInterval(Duration probeInterval) {
        return with((s) -> s.probeInterval = probeInterval);
    }

    /**
     * The same factory, running {@code action} on the probe's thread after each probe that finds Redis
     * still failing: for recovery the Redis client does not do by itself soon enough, such as reloading
     * a Redis Cluster's topology so that calls reach a promoted replica as soon as it serves the slots of
     * a dead master. It must return quickly; what it throws is ignored.
     */
    public RedisRateLimiterFactory withRecoveryAction(Runnable action) {
        return with((s) -> s.recoveryAction = action);
    }

    /** The same factory, telling {@code listener} of every decision its limiters make, wherever it came from. */
    public RedisRateLimiterFactory withListener(DecisionListener listener) {
        return with((s) -> s.listener = (listener != null) ? listener : DecisionListener.NONE);
    }

    /**
     * The same factory with a local deny cache: after Redis rejects a key, this instance rejects the
     * same request for that key locally until the retry-after Redis gave, without calling Redis. A
     * flood on a key over its limit then costs Redis about one call per retry-after period per
     * instance. Requests for fewer permits than the remembered rejection still ask Redis.
     *
     * @param maxKeys most keys remembered at once (the least recently used are forgotten first)
     */
    public RedisRateLimiterFactory withLocalDenyCache(int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("the local deny cache must hold at least 1 key but maxKeys was " + maxKeys);
        }
        return with((s) -> s.denyCacheKeys = maxKeys);
    }

    /**
     * The same factory, deciding {@link RateLimiter#tryAcquireAsync asynchronous requests} by sending
     * the script through the reactive API of the same Redis, so that no thread waits for it. Without
     * it, asynchronous requests are decided by the blocking call.
     *
     * @param reactiveRedis reactive operations with String keys and values on the same Redis, such
     *     as a {@code ReactiveStringRedisTemplate}; their connection should time commands out as
     *     quickly as that of the blocking operations (Lettuce's {@code TimeoutOptions})
     */
    public RedisRateLimiterFactory withReactiveRedis(ReactiveRedisOperations<String, String> reactiveRedis) {
        if (reactiveRedis == null) {
            throw new IllegalArgumentException("reactiveRedis must not be null");
        }
        ReactiveScripts scripts = new ReactiveScripts(reactiveRedis);
        return with((s) -> s.reactive = scripts);
    }

    /** Whether the limiters of this factory use Redis now (false while they follow their failure policy). */
    public boolean isRedisAvailable() {
        return availability.available();
    }

    /**
     * Connects and loads every algorithm's script now, so that the first decisions pay for neither.
     * If Redis does not answer, limiters start on their failure policy and the probe takes over.
     */
    public void warmUp() {
        try {
            settings.redis.execute((RedisCallback<Void>) connection -> {
                for (Algorithm algorithm : Algorithm.values()) {
                    connection.scriptingCommands().scriptLoad(LuaScript.of(algorithm).getScriptAsString().getBytes(StandardCharsets.UTF_8));
                }
                return null;
            });
            if (settings.reactive != null) {
                settings.reactive.connect();
            }
        }
        catch (RuntimeException ex) {
            availability.failed(null, ex);
        }
    }

    /** Stops the background probe, if one runs. */
    public void close() {
        availability.close();
    }

    @Override
    public RateLimiter create(String name, RateLimiterConfig config) {
        FailurePolicy policy = (config.onRedisFailure() != null) ? config.onRedisFailure() : settings.onFailure;
        RateLimiter fallback = (policy == FailurePolicy.LOCAL) ? local.create(name, config.shareOf(settings.expectedInstances)) : null;
        return new RedisRateLimiter(name, config, settings.redis, settings.reactive, settings.keyPrefix, settings.clock, availability, policy, fallback,
                settings.listener, denyCache);
    }
}
