package dev.limiter;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

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

    private final RedisOperations<String, String> redis;

    /** Null unless given: asynchronous decisions are then made blocking. */
    private final ReactiveScripts reactive;

    private final String keyPrefix;

    private final LimiterClock clock;

    private final FailurePolicy onFailure;

    private final InMemoryRateLimiterFactory local;

    private final int expectedInstances;

    private final RedisAvailability availability;

    private final DecisionListener listener;

    /**
     * Limiters on {@code redis} that decide in memory while it fails ({@link FailurePolicy#LOCAL},
     * one instance expected).
     *
     * @param redis operations with String keys and values, such as a {@code StringRedisTemplate};
     *     give it a short command timeout, since a decision waits at most that long for Redis
     */
    public RedisRateLimiterFactory(RedisOperations<String, String> redis) {
        this(redis, null, DEFAULT_KEY_PREFIX, null, FailurePolicy.LOCAL, null, 1, DEFAULT_PROBE_INTERVAL, DecisionListener.NONE);
    }

    private RedisRateLimiterFactory(RedisOperations<String, String> redis, ReactiveScripts reactive, String keyPrefix, LimiterClock clock,
            FailurePolicy onFailure, InMemoryRateLimiterFactory local, int expectedInstances, Duration probeInterval,
            DecisionListener listener) {
        if (redis == null) {
            throw new IllegalArgumentException("redis must not be null");
        }
        if (onFailure == null) {
            throw new IllegalArgumentException("the failure policy must not be null");
        }
        if (expectedInstances < 1) {
            throw new IllegalArgumentException("expected instances must be at least 1 but was " + expectedInstances);
        }
        if (probeInterval == null || probeInterval.isNegative() || probeInterval.isZero()) {
            throw new IllegalArgumentException("the probe interval must be positive but was " + probeInterval);
        }
        this.redis = redis;
        this.reactive = reactive;
        this.keyPrefix = RedisKeys.checkPrefix(keyPrefix);
        this.clock = clock;
        this.onFailure = onFailure;
        this.local = (local != null) ? local : new InMemoryRateLimiterFactory((clock != null) ? clock : LimiterClock.system(),
                InMemoryRateLimiterFactory.DEFAULT_MAX_KEYS);
        this.expectedInstances = expectedInstances;
        this.availability = new RedisAvailability(redis, probeInterval);
        this.listener = (listener != null) ? listener : DecisionListener.NONE;
    }

    /** Keys start with {@code keyPrefix + ":"}; the prefix must not contain '{' or '}'. */
    public RedisRateLimiterFactory withKeyPrefix(String keyPrefix) {
        return new RedisRateLimiterFactory(redis, reactive, keyPrefix, clock, onFailure, local, expectedInstances,
                availability.probeInterval(), listener);
    }

    /**
     * Passes time from {@code clock} to the scripts instead of reading Redis TIME. Meant for tests
     * that drive time; in production, Redis time keeps instances with skewed clocks in agreement.
     */
    public RedisRateLimiterFactory withClock(LimiterClock clock) {
        return new RedisRateLimiterFactory(redis, reactive, keyPrefix, clock, onFailure, local, expectedInstances,
                availability.probeInterval(), listener);
    }

    /**
     * What limiters decide while Redis fails, unless their configuration says otherwise.
     *
     * @param policy the default policy
     * @param local the in-memory limiters {@link FailurePolicy#LOCAL} uses
     * @param expectedInstances how many instances share each limit: locally, each admits its share
     */
    public RedisRateLimiterFactory withFailurePolicy(FailurePolicy policy, InMemoryRateLimiterFactory local, int expectedInstances) {
        return new RedisRateLimiterFactory(redis, reactive, keyPrefix, clock, policy, local, expectedInstances,
                availability.probeInterval(), listener);
    }

    /** How often a failed Redis is pinged to find out whether it answers again. */
    public RedisRateLimiterFactory withProbeInterval(Duration probeInterval) {
        return new RedisRateLimiterFactory(redis, reactive, keyPrefix, clock, onFailure, local, expectedInstances, probeInterval, listener);
    }

    /** The same factory, telling {@code listener} of every decision its limiters make, wherever it came from. */
    public RedisRateLimiterFactory withListener(DecisionListener listener) {
        return new RedisRateLimiterFactory(redis, reactive, keyPrefix, clock, onFailure, local, expectedInstances,
                availability.probeInterval(), listener);
    }

    /**
     * The same factory, whose limiters decide {@link RateLimiter#tryAcquireAsync asynchronously}
     * through the reactive API of the same Redis, so that no thread waits for it. Without it,
     * asynchronous decisions are made blocking. Needs Reactor on the classpath.
     *
     * @param reactiveRedis reactive operations with String keys and values on the same Redis, such
     *     as a {@code ReactiveStringRedisTemplate}; their connection should time commands out as
     *     quickly as that of the blocking operations (Lettuce's {@code TimeoutOptions})
     */
    public RedisRateLimiterFactory withReactiveRedis(ReactiveRedisOperations<String, String> reactiveRedis) {
        if (reactiveRedis == null) {
            throw new IllegalArgumentException("reactiveRedis must not be null");
        }
        return new RedisRateLimiterFactory(redis, new ReactiveScripts(reactiveRedis), keyPrefix, clock, onFailure, local, expectedInstances,
                availability.probeInterval(), listener);
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
            redis.execute((RedisCallback<Void>) connection -> {
                for (Algorithm algorithm : Algorithm.values()) {
                    connection.scriptingCommands().scriptLoad(LuaScript.of(algorithm).getScriptAsString().getBytes(StandardCharsets.UTF_8));
                }
                return null;
            });
            if (reactive != null) {
                reactive.connect();
            }
        }
        catch (RuntimeException ex) {
            availability.failed(ex);
        }
    }

    /** Stops the background probe, if one runs. */
    public void close() {
        availability.close();
    }

    @Override
    public RateLimiter create(String name, RateLimiterConfig config) {
        FailurePolicy policy = (config.onRedisFailure() != null) ? config.onRedisFailure() : onFailure;
        RateLimiter fallback = (policy == FailurePolicy.LOCAL) ? local.create(name, config.shareOf(expectedInstances)) : null;
        return new RedisRateLimiter(name, config, redis, reactive, keyPrefix, clock, availability, policy, fallback, listener);
    }
}
