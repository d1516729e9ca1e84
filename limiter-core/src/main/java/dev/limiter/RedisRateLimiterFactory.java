package dev.limiter;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.ReactiveRedisOperations;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;

/**
 * Creates limiters whose state lives in Redis, shared by every instance of the application.
 * Limiters of one factory share one view of Redis' availability: once there is evidence of an outage
 * (a connection refused or lost, or calls failing for {@link #DEFAULT_OUTAGE_AFTER} with none
 * succeeding) they follow their {@link FailurePolicy}, and resume when a background probe finds Redis
 * answering; a single slow or failed call gets the policy's answer for itself alone. Each instance
 * announces itself in Redis with a heartbeat, so that {@link FailurePolicy#LOCAL} divides each limit
 * among the instances alive, from {@link #warmUp()} on. Immutable: the {@code with...} methods return
 * a changed copy; configure it fully, then call {@link #warmUp()} once.
 */
public final class RedisRateLimiterFactory implements RateLimiterFactory {

    private static final Log logger = LogFactory.getLog(RedisRateLimiterFactory.class);

    /** Key prefix used unless another is given. */
    public static final String DEFAULT_KEY_PREFIX = "limiter";

    /** How often a failed Redis is probed unless configured. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(250);

    /** How long calls must keep failing, none succeeding, before Redis counts as out, unless configured. */
    public static final Duration DEFAULT_OUTAGE_AFTER = Duration.ofSeconds(1);

    /** How often each instance announces itself in Redis unless configured. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(5);

    /** Start-up attempts to load the scripts before Redis counts as out. */
    static final int WARM_UP_ATTEMPTS = 3;

    /** What the factory was built with; each {@code with...} copies and changes it. */
    private static final class Settings implements Cloneable {

        RedisOperations<String, String> redis;

        /** The same Redis through the reactive API, for asynchronous decisions; null to decide them blocking. */
        ReactiveScripts reactive;

        String keyPrefix = DEFAULT_KEY_PREFIX;

        LimiterClock clock;

        FailurePolicy onFailure = FailurePolicy.LOCAL;

        InMemoryRateLimiterFactory local;

        /** Instances sharing each limit as configured; 0 to count them by heartbeat. */
        int expectedInstances;

        Duration probeInterval = DEFAULT_PROBE_INTERVAL;

        Duration outageAfter = DEFAULT_OUTAGE_AFTER;

        Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;

        LongSupplier nanoTime = System::nanoTime;

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

    private final Background background = new Background();

    private final InstanceRegistry instances;

    private volatile boolean heartbeatStarted;

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
        if (settings.expectedInstances < 0) {
            throw new IllegalArgumentException("expected instances must be at least 1 but was " + settings.expectedInstances);
        }
        positive(settings.probeInterval, "the probe interval");
        positive(settings.heartbeatInterval, "the heartbeat interval");
        if (settings.outageAfter == null || settings.outageAfter.isNegative()) {
            throw new IllegalArgumentException("outage-after must be zero or positive but was " + settings.outageAfter);
        }
        if (settings.denyCacheKeys < 0) {
            throw new IllegalArgumentException("the local deny cache must hold at least 1 key but maxKeys was " + settings.denyCacheKeys);
        }
        RedisKeys.checkPrefix(settings.keyPrefix);
        this.settings = settings;
        this.local = (settings.local != null) ? settings.local
                : new InMemoryRateLimiterFactory((settings.clock != null) ? settings.clock : LimiterClock.system(),
                        InMemoryRateLimiterFactory.DEFAULT_MAX_KEYS);
        this.availability = new RedisAvailability(settings.redis, settings.probeInterval, settings.outageAfter, settings.recoveryAction,
                background, settings.nanoTime);
        this.instances = new InstanceRegistry(settings.redis, settings.keyPrefix, settings.heartbeatInterval, settings.clock,
                settings.expectedInstances);
        this.denyCache = (settings.denyCacheKeys > 0) ? new LocalDenyCache(settings.denyCacheKeys, settings.clock) : null;
    }

    private static void positive(Duration duration, String what) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive but was " + duration);
        }
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
     * What limiters decide while Redis fails, unless their configuration says otherwise; with
     * {@link FailurePolicy#LOCAL}, each limit is divided among the instances counted alive.
     *
     * @param policy the default policy
     * @param local the in-memory limiters {@link FailurePolicy#LOCAL} uses
     */
    public RedisRateLimiterFactory withFailurePolicy(FailurePolicy policy, InMemoryRateLimiterFactory local) {
        return with((s) -> {
            s.onFailure = policy;
            s.local = local;
        });
    }

    /**
     * As {@link #withFailurePolicy(FailurePolicy, InMemoryRateLimiterFactory)}, dividing each limit by
     * a configured number of instances instead of those counted.
     *
     * @param expectedInstances how many instances share each limit: locally, each admits its share
     */
    public RedisRateLimiterFactory withFailurePolicy(FailurePolicy policy, InMemoryRateLimiterFactory local, int expectedInstances) {
        if (expectedInstances < 1) {
            throw new IllegalArgumentException("expected instances must be at least 1 but was " + expectedInstances);
        }
        return with((s) -> {
            s.onFailure = policy;
            s.local = local;
            s.expectedInstances = expectedInstances;
        });
    }

    /**
     * How long calls must keep failing, none succeeding, before Redis counts as out (a refused or lost
     * connection counts at once). Zero: every failed call means an outage.
     */
    public RedisRateLimiterFactory withOutageAfter(Duration outageAfter) {
        return with((s) -> s.outageAfter = outageAfter);
    }

    /** How often this instance announces itself in Redis; it counts as alive for three intervals after. */
    public RedisRateLimiterFactory withHeartbeatInterval(Duration heartbeatInterval) {
        return with((s) -> s.heartbeatInterval = heartbeatInterval);
    }

    /** The same factory reading elapsed time from {@code nanoTime}: for tests of outage detection. */
    RedisRateLimiterFactory withNanoTime(LongSupplier nanoTime) {
        return with((s) -> s.nanoTime = nanoTime);
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
     * How many instances share each limit: as configured, or as counted alive by their heartbeats
     * in Redis (the count last seen while Redis fails), at least this one. Instances announce
     * themselves from {@link #warmUp()} on; before it, or without it, the count is 1.
     */
    public int instances() {
        return instances.instances();
    }

    /** Whether {@link #instances()} is configured rather than counted. */
    public boolean isInstanceCountConfigured() {
        return instances.isConfigured();
    }

    /**
     * Connects, loads every algorithm's script and starts announcing this instance (a heartbeat on a
     * daemon thread, see {@link #instances()}), so that the first decisions pay for none of it. A start-up attempt that fails without evidence of an outage (a
     * cold connection, a slow TLS handshake) is retried quietly; if Redis cannot be reached, limiters
     * start on their failure policy and the probe takes over.
     */
    public void warmUp() {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= WARM_UP_ATTEMPTS; attempt++) {
            try {
                loadScripts();
                if (settings.reactive != null) {
                    settings.reactive.connect();
                }
                // The first heartbeat now, so that the count includes this instance from the start.
                instances.beat();
                startHeartbeat(instances.interval());
                return;
            }
            catch (RuntimeException ex) {
                last = ex;
                String evidence = RedisAvailability.outageEvidence(ex);
                if (evidence != null && attempt > 1) {
                    break;
                }
                logger.debug("Rate limiters' start-up attempt " + attempt + " on Redis failed; trying again", ex);
            }
        }
        String evidence = RedisAvailability.outageEvidence(last);
        availability.unavailable(null, "at start-up, " + ((evidence != null) ? evidence : WARM_UP_ATTEMPTS + " attempts failed"), last);
        startHeartbeat(Duration.ZERO);
    }

    private void loadScripts() {
        settings.redis.execute((RedisCallback<Void>) connection -> {
            for (Algorithm algorithm : Algorithm.values()) {
                connection.scriptingCommands().scriptLoad(LuaScript.of(algorithm).getScriptAsString().getBytes(StandardCharsets.UTF_8));
            }
            return null;
        });
    }

    /** Starts announcing this instance every interval, the first time after {@code first}; idempotent. */
    private synchronized void startHeartbeat(Duration first) {
        if (!heartbeatStarted) {
            heartbeatStarted = true;
            background.repeat(instances::beat, first, instances.interval());
        }
    }

    /** Stops the background probe and heartbeat, and removes this instance from the count. */
    public void close() {
        background.close();
        if (heartbeatStarted && availability.available()) {
            instances.leave();
        }
    }

    @Override
    public RateLimiter create(String name, RateLimiterConfig config) {
        FailurePolicy policy = (config.onRedisFailure() != null) ? config.onRedisFailure() : settings.onFailure;
        LocalShares shares = (policy == FailurePolicy.LOCAL)
                ? new LocalShares(name, config, local, (settings.clock != null) ? settings.clock : LimiterClock.system(), instances::instances,
                        local.maxKeys())
                : null;
        return new RedisRateLimiter(name, config, settings.redis, settings.reactive, settings.keyPrefix, settings.clock, availability, policy, shares,
                settings.listener, denyCache);
    }
}
