package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;


import dev.limiter.Algorithm;
import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.DecisionListener;
import dev.limiter.FailurePolicy;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.internal.LimiterArguments;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
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
 * among the instances alive, from {@link #warmUp()} on. Built with {@link #builder}; call
 * {@link #warmUp()} once, and {@link #close()} at shutdown.
 */
public final class RedisRateLimiterFactory implements RateLimiterFactory {

    private static final Log logger = LogFactory.getLog(RedisRateLimiterFactory.class);

    /** Key prefix used unless another is given. */
    public static final String DEFAULT_KEY_PREFIX = "limiter";

    /** How often a failed Redis is probed unless configured. */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(250);

    /** How long calls must keep failing, none succeeding, before Redis counts as out, unless configured. */
    public static final Duration DEFAULT_OUTAGE_AFTER = Duration.ofSeconds(1);

    /**
     * How often each instance announces itself in Redis unless configured: also how long at most an
     * instance back from an outage waits for one that had none to say it owes nothing.
     */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMillis(500);

    /** Start-up attempts to load the scripts before Redis counts as out. */
    static final int WARM_UP_ATTEMPTS = 3;

    private final RedisOperations<String, String> redis;

    /** The same Redis through the reactive API, for asynchronous decisions; null to decide them blocking. */
    private final @Nullable ReactiveScripts reactive;

    private final String keyPrefix;

    /** Time passed to the scripts; null to use Redis TIME. */
    private final @Nullable LimiterClock clock;

    private final FailurePolicy onFailure;

    private final DecisionListener listener;

    private final InMemoryRateLimiterFactory local;

    private final RedisAvailability availability;

    private final @Nullable LocalDenyCache denyCache;

    /** Sends blocking decisions that meet in flight as one script call, shared by the limiters; null when off. */
    private final @Nullable ScriptBatches batches;

    /** The same for asynchronous decisions through {@link #reactive}; null when either is off. */
    private final @Nullable ReactiveBatches reactiveBatches;

    private final Background background = new Background();

    /**
     * The heartbeat's own thread: a probe or a charge of many keys on {@link #background} must not
     * delay it, or the other instances would find this one silent late, or when it is not.
     */
    private final Background heartbeat = new Background("limiter-redis-heartbeat");

    private final InstanceRegistry instances;

    /** Makes each limiter's tuning: script, keys, failure policy, for its configuration. */
    private final RedisRateLimiter.Tuner tuner;

    /** Why the client could not reconnect, heard from Lettuce; null without Lettuce. */
    private final @Nullable ReconnectFailures reconnectFailures;

    /** Permits the failure policies admitted without Redis, charged to it when it answers. */
    private final UnchargedPermits uncharged;

    private volatile boolean heartbeatStarted;

    /** Stopped renewing when this factory closes. */
    private final java.util.Queue<ConcurrencyLimiter> concurrencyLimiters = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * A builder of limiters on {@code redis}.
     *
     * @param redis operations with String keys and values, such as a {@code StringRedisTemplate};
     *     give it a short command timeout, since a decision waits at most that long for Redis
     */
    public static Builder builder(RedisOperations<String, String> redis) {
        return new Builder(redis);
    }

    private RedisRateLimiterFactory(Builder settings) {
        this.redis = settings.redis;
        this.reactive = settings.reactive;
        this.keyPrefix = settings.keyPrefix;
        this.clock = settings.clock;
        this.onFailure = settings.onFailure;
        this.listener = settings.listener;
        this.local = (settings.local != null) ? settings.local
                : InMemoryRateLimiterFactory.builder().clock((settings.clock != null) ? settings.clock : LimiterClock.system()).build();
        LimiterClock localClock = (settings.clock != null) ? settings.clock : LimiterClock.system();
        this.reconnectFailures = RedisAddress.LETTUCE_PRESENT ? ReconnectFailures.of(settings.redis) : null;
        this.uncharged = new UnchargedPermits(local.maxKeys(), localClock);
        this.instances = new InstanceRegistry(settings.redis, settings.keyPrefix, settings.heartbeatInterval, settings.clock,
                settings.expectedInstances);
        this.availability = new RedisAvailability(settings.redis, settings.probeInterval, settings.outageAfter, settings.recoveryAction,
                background, settings.nanoTime, new Settlement(new BlockingScripts(settings.redis)), RedisAddress.of(settings.redis),
                instances.key(), () -> (reconnectFailures != null) ? reconnectFailures.last() : null);
        instances.whenOthersSilent(availability::othersSilent);
        this.denyCache = (settings.denyCacheKeys > 0) ? new LocalDenyCache(settings.denyCacheKeys, settings.clock) : null;
        this.batches = (settings.maxBatchSize > 0) ? new ScriptBatches(new BlockingScripts(settings.redis), settings.maxBatchSize) : null;
        this.reactiveBatches = (settings.maxBatchSize > 0 && settings.reactive != null)
                ? new ReactiveBatches(settings.reactive, settings.maxBatchSize) : null;
        this.tuner = new RedisRateLimiter.Tuner(onFailure, local, localClock, instances::instances,
                (clock != null) ? clock : () -> System.nanoTime() / 1_000L);
    }

    /**
     * What an outage leaves to settle: the permits this instance's failure policies admitted, charged
     * to Redis, and the word of every other instance alive that it did the same since this one returned
     * (its heartbeat), awaited as long as they count as alive: one cut off from Redis keeps deciding by
     * its shares until it has charged, and one that died stops counting once its heartbeats have lapsed.
     */
    private final class Settlement implements RedisAvailability.Settlement {

        private final BlockingScripts scripts;

        /** The number of this instance's first heartbeat after the outage; null until then. */
        private volatile @Nullable Long returnedAt;

        Settlement(BlockingScripts scripts) {
            this.scripts = scripts;
        }

        @Override
        public boolean owes() {
            return !uncharged.isEmpty();
        }

        @Override
        public @Nullable RuntimeException charge() {
            return uncharged.chargeAll(scripts, clock);
        }

        @Override
        public boolean settled() {
            Long since = returnedAt;
            if (since == null) {
                since = instances.othersOwing(uncharged.isEmpty(), null).beat();
                returnedAt = since;
            }
            int owing = instances.othersOwing(uncharged.isEmpty(), since).owing();
            if (owing == 0) {
                instances.release();
                return true;
            }
            // An instance alive that has not said so is still deciding by its shares (cut off from Redis),
            // or died: it stops counting as alive once its heartbeats have lapsed.
            return false;
        }

        @Override
        public boolean foundSilent() {
            return instances.foundSilent();
        }

        @Override
        public boolean uninformed() {
            return instances.uninformed();
        }

        @Override
        public void outage() {
            returnedAt = null;
            instances.hold();
        }
    }

    /**
     * Configures a {@link RedisRateLimiterFactory}. Each setter checks its value at once, so a mistake
     * is reported where it is made; {@link #build()} may be called once per factory wanted.
     */
    public static final class Builder {

        private final RedisOperations<String, String> redis;

        /** The same Redis through the reactive API, for asynchronous decisions; null to decide them blocking. */
        private @Nullable ReactiveScripts reactive;

        private String keyPrefix = DEFAULT_KEY_PREFIX;

        private @Nullable LimiterClock clock;

        private FailurePolicy onFailure = FailurePolicy.LOCAL;

        private @Nullable InMemoryRateLimiterFactory local;

        /** Instances sharing each limit as configured; 0 to count them by heartbeat. */
        private int expectedInstances;

        private Duration probeInterval = DEFAULT_PROBE_INTERVAL;

        private Duration outageAfter = DEFAULT_OUTAGE_AFTER;

        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;

        private LongSupplier nanoTime = System::nanoTime;

        private @Nullable Runnable recoveryAction;

        private DecisionListener listener = DecisionListener.NONE;

        /** Most keys the local deny cache holds; 0 when it is off. */
        private int denyCacheKeys;

        /** Most decisions sent in one batch; 0 when batching is off. */
        private int maxBatchSize;

        private Builder(RedisOperations<String, String> redis) {
            if (redis == null) {
                throw new IllegalArgumentException("redis must not be null");
            }
            this.redis = redis;
        }

        /** Keys start with {@code keyPrefix + ":"}; the prefix must not contain '{' or '}'. Default {@value RedisRateLimiterFactory#DEFAULT_KEY_PREFIX}. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeys.checkPrefix(keyPrefix);
            return this;
        }

        /**
         * Passes time from {@code clock} to the scripts instead of reading Redis TIME. Meant for tests
         * that drive time; in production, Redis time keeps instances with skewed clocks in agreement.
         */
        public Builder clock(LimiterClock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * What limiters decide while Redis fails, unless their configuration says otherwise; default
         * {@link FailurePolicy#LOCAL}, each limit divided among the instances counted alive.
         */
        public Builder failurePolicy(FailurePolicy policy) {
            if (policy == null) {
                throw new IllegalArgumentException("the failure policy must not be null");
            }
            this.onFailure = policy;
            return this;
        }

        /** The in-memory limiters {@link FailurePolicy#LOCAL} decides with; by default a factory on the same clock. */
        public Builder localLimiters(InMemoryRateLimiterFactory local) {
            this.local = local;
            return this;
        }

        /**
         * Divides each limit by this many instances under {@link FailurePolicy#LOCAL}, instead of those
         * counted by their heartbeats.
         */
        public Builder expectedInstances(int expectedInstances) {
            if (expectedInstances < 1) {
                throw new IllegalArgumentException("expected instances must be at least 1 but was " + expectedInstances);
            }
            this.expectedInstances = expectedInstances;
            return this;
        }

        /** How often a failed Redis is probed to find out whether it answers again. */
        public Builder probeInterval(Duration probeInterval) {
            this.probeInterval = positive(probeInterval, "the probe interval");
            return this;
        }

        /**
         * How long calls must keep failing, none succeeding, before Redis counts as out (a refused or lost
         * connection counts at once). Zero: every failed call means an outage.
         */
        public Builder outageAfter(Duration outageAfter) {
            if (outageAfter == null || outageAfter.isNegative()) {
                throw new IllegalArgumentException("outage-after must be zero or positive but was " + outageAfter);
            }
            this.outageAfter = outageAfter;
            return this;
        }

        /** How often this instance announces itself in Redis; it counts as alive for three intervals after. */
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = positive(heartbeatInterval, "the heartbeat interval");
            return this;
        }

        /** Reads elapsed time from {@code nanoTime}: for tests of outage detection. */
        Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = nanoTime;
            return this;
        }

        /**
         * Runs {@code action} on the background thread after each probe that finds Redis still failing:
         * for recovery the Redis client does not do by itself soon enough, such as reloading a Redis
         * Cluster's topology so that calls reach a promoted replica as soon as it serves the slots of a
         * dead master. It must return quickly; what it throws is ignored.
         */
        public Builder recoveryAction(Runnable action) {
            this.recoveryAction = action;
            return this;
        }

        /** Tells {@code listener} of every decision the limiters make, wherever it came from; null tells no one. */
        public Builder listener(@Nullable DecisionListener listener) {
            this.listener = (listener != null) ? listener : DecisionListener.NONE;
            return this;
        }

        /**
         * A local deny cache: after Redis rejects a key, this instance rejects the same request for that
         * key locally until the retry-after Redis gave, without calling Redis. A flood on a key over its
         * limit then costs Redis about one call per retry-after period per instance. Requests for fewer
         * permits than the remembered rejection still ask Redis.
         *
         * @param maxKeys most keys remembered at once (the least recently used are forgotten first)
         */
        public Builder localDenyCache(int maxKeys) {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("the local deny cache must hold at least 1 key but maxKeys was " + maxKeys);
            }
            this.denyCacheKeys = maxKeys;
            return this;
        }

        /**
         * Batching: decisions that meet in flight go to Redis as one script call deciding them one
         * after the other, so that Redis pays the fixed cost of a call (EVALSHA, TIME, the reply) once
         * per batch instead of once per decision. While two calls are on their way, further decisions
         * queue, and the next caller to find a call free (for asynchronous requests through
         * {@link #reactiveRedis}, the thread that reads a reply) sends them all; a decision that finds
         * a call free goes out at once, alone, as without batching, so nothing waits for company.
         * Each caller gets its own decision, the one its script would have given it alone. A batch
         * that fails goes to the failure policy of each of its callers. On a Redis Cluster, only
         * decisions of one hash slot are batched together. Blocking and asynchronous decisions queue
         * apart, each for its own connection.
         *
         * @param maxBatchSize most decisions sent in one call, at least 1 (1 sends each alone, as
         *     without batching, but still queues behind two calls in flight)
         */
        public Builder batching(int maxBatchSize) {
            if (maxBatchSize < 1) {
                throw new IllegalArgumentException("a batch must hold at least 1 decision but maxBatchSize was " + maxBatchSize);
            }
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        /**
         * Decides {@link RateLimiter#tryAcquireAsync asynchronous requests} by sending the script through
         * the reactive API of the same Redis, so that no thread waits for it. Without it, asynchronous
         * requests are decided by the blocking call.
         *
         * @param reactiveRedis reactive operations with String keys and values on the same Redis, such
         *     as a {@code ReactiveStringRedisTemplate}; their connection should time commands out as
         *     quickly as that of the blocking operations (Lettuce's {@code TimeoutOptions})
         */
        public Builder reactiveRedis(ReactiveRedisOperations<String, String> reactiveRedis) {
            return reactiveRedis(reactiveRedis, null);
        }

        /**
         * As {@link #reactiveRedis(ReactiveRedisOperations)}, deciding an asynchronous request by the failure
         * policy when Redis has not answered within {@code deadline}, whatever the connection's own timeouts
         * do: a bound on how long a caller waits that holds even while a connection is being made again.
         *
         * @param deadline how long one asynchronous decision may wait for Redis; null for the connection's
         *     timeouts alone
         */
        public Builder reactiveRedis(ReactiveRedisOperations<String, String> reactiveRedis, @Nullable Duration deadline) {
            if (reactiveRedis == null) {
                throw new IllegalArgumentException("reactiveRedis must not be null");
            }
            if (deadline != null && (deadline.isNegative() || deadline.isZero())) {
                throw new IllegalArgumentException("the deadline of an asynchronous decision must be positive, not " + deadline);
            }
            this.reactive = new ReactiveScripts(reactiveRedis, deadline);
            return this;
        }

        /** A factory with these settings; call {@link RedisRateLimiterFactory#warmUp()} on it once. */
        public RedisRateLimiterFactory build() {
            return new RedisRateLimiterFactory(this);
        }

        private static Duration positive(Duration duration, String what) {
            if (duration == null || duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(what + " must be positive but was " + duration);
            }
            return duration;
        }
    }

    /** Whether the limiters of this factory use Redis now (false while they follow their failure policy). */
    public boolean isRedisAvailable() {
        return availability.available();
    }

    /**
     * Why Redis is out: the evidence and what Redis or the client said (such as an OOM or NOAUTH reply,
     * or a refused connection); null while the limiters use it.
     */
    public @Nullable String unavailableReason() {
        return availability.reason();
    }

    /** Where the limiters' Redis is: host:port, the nodes of a cluster, a master and its sentinels, or a socket. */
    public String redisAddress() {
        return availability.address();
    }

    /** Keys whose permits, admitted while Redis failed, are not charged to it yet. */
    public int unchargedKeys() {
        return uncharged.keys();
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
                if (reactive != null) {
                    boolean cluster = reactive.connect();
                    if (reactiveBatches != null) {
                        reactiveBatches.known(cluster);
                    }
                }
                // The first heartbeat now, so that the count includes this instance from the start.
                instances.beat(uncharged.isEmpty());
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
        // Only a failed attempt gets here: the loop returns on success.
        RuntimeException failure = (last != null) ? last : new IllegalStateException("Redis did not answer");
        String evidence = RedisAvailability.outageEvidence(failure);
        availability.unavailable(null, "at start-up, " + ((evidence != null) ? evidence : WARM_UP_ATTEMPTS + " attempts failed"), failure);
        startHeartbeat(Duration.ZERO);
    }

    private void loadScripts() {
        redis.execute((RedisCallback<Boolean>) connection -> {
            for (Algorithm algorithm : Algorithm.values()) {
                connection.scriptingCommands().scriptLoad(LuaScript.of(algorithm).getScriptAsString().getBytes(StandardCharsets.UTF_8));
                connection.scriptingCommands().scriptLoad(LuaScript.refundOf(algorithm).getScriptAsString().getBytes(StandardCharsets.UTF_8));
                connection.scriptingCommands().scriptLoad(LuaScript.chargeOf(algorithm).getScriptAsString().getBytes(StandardCharsets.UTF_8));
                if (algorithm.isBucket()) {
                    connection.scriptingCommands().scriptLoad(LeaseScript.of(algorithm).getScriptAsString().getBytes(StandardCharsets.UTF_8));
                }
            }
            if (batches != null) {
                connection.scriptingCommands().scriptLoad(LuaScript.batch().getScriptAsString().getBytes(StandardCharsets.UTF_8));
            }
            connection.scriptingCommands().scriptLoad(RedisHoldingLimiter.HOLD.getScriptAsString().getBytes(StandardCharsets.UTF_8));
            connection.scriptingCommands().scriptLoad(RedisHoldingLimiter.REMAINING.getScriptAsString().getBytes(StandardCharsets.UTF_8));
            // Concurrency limits take and release in one round trip each from their first call, not a NOSCRIPT and an EVAL.
            for (LuaScript concurrency : List.of(RedisConcurrencyLimiter.TAKE, RedisConcurrencyLimiter.RELEASE,
                    RedisConcurrencyLimiter.RENEW, RedisConcurrencyLimiter.COUNT, RedisConcurrencyLimiter.LEAVE)) {
                connection.scriptingCommands().scriptLoad(concurrency.getScriptAsString().getBytes(StandardCharsets.UTF_8));
            }
            // The heartbeat too, which warmUp sends next: else its first EVALSHA is answered NOSCRIPT, an error in Redis' stats.
            connection.scriptingCommands().scriptLoad(InstanceRegistry.HEARTBEAT.getScriptAsString().getBytes(StandardCharsets.UTF_8));
            return Boolean.TRUE;
        });
    }

    /** Starts announcing this instance every interval, the first time after {@code first}; idempotent. */
    private synchronized void startHeartbeat(Duration first) {
        if (!heartbeatStarted) {
            heartbeatStarted = true;
            heartbeat.repeat(() -> instances.beat(uncharged.isEmpty()), first, instances.interval());
        }
    }

    /** Stops the background probe and heartbeat, and removes this instance from the count. */
    public void close() {
        concurrencyLimiters.forEach(ConcurrencyLimiter::close);
        background.close();
        heartbeat.close();
        if (reconnectFailures != null) {
            reconnectFailures.close();
        }
        if (heartbeatStarted && availability.available()) {
            instances.leave();
        }
    }

    /** Whether limiters keep within their shares of each limit though Redis decides: after an outage, or while another instance is silent. */
    boolean isSettling() {
        return availability.settling();
    }

    /** Whether the other instances have had the time to find this one silent: see {@link RedisAvailability#othersKeepToShares()}. */
    boolean othersKeepToShares() {
        return availability.othersKeepToShares();
    }

    /** Whether decisions that meet in flight go to Redis as one script call ({@link Builder#batching}). */
    public boolean isBatching() {
        return batches != null;
    }

    /** The batching of this factory's limiters; null when off. For tests. */
    @Nullable ScriptBatches batches() {
        return batches;
    }

    /** The batching of this factory's asynchronous decisions; null when off. For tests. */
    @Nullable ReactiveBatches reactiveBatches() {
        return reactiveBatches;
    }

    /**
     * A limit of calls in flight whose slots live in Redis, shared by every instance: keys
     * {@code <prefix>:{<name>:<key>}:cc} (and {@code :ccq}, {@code :cct} for its waiters, first come first
     * served), one script call to take a slot or queue and one to release it. Its failure
     * policy is its configuration's, else this factory's. Closed with this factory.
     */
    @Override
    public ConcurrencyLimiter createConcurrencyLimiter(String name, ConcurrencyLimiterConfig config) {
        RedisConcurrencyLimiter limiter = new RedisConcurrencyLimiter(name, config, new BlockingScripts(redis), keyPrefix, clock, onFailure,
                local, instances::instances, listener);
        concurrencyLimiters.add(limiter);
        return limiter;
    }

    /**
     * The Redis key of state that an integration keeps beside a limiter's key, such as a hold an upstream
     * asked for: {@code <prefix>:{<name>:<key>}:companion:<kind>}. It shares the hash tag of the limiter's own
     * keys of {@code key} (one Redis Cluster slot), escapes {@code key} as they do, and never equals a key of
     * any feature of the limiter (rate limits, concurrency limits), whatever the kind.
     *
     * @param name the limiter's name
     * @param key the subject limited, as passed to the limiter
     * @param kind what the state is, lowercase letters only, such as {@code hold}
     */
    public String companionKey(String name, String key, String kind) {
        if (name == null || name.isEmpty() || name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
            throw new IllegalArgumentException("Invalid limiter name '" + name + "'");
        }
        return RedisKeys.head(keyPrefix, name) + RedisKeys.escape(key) + RedisKeys.companionTail(kind);
    }

    /**
     * Decisions of {@code limiter}, one of this factory's, that also respect a hold on the key (what
     * companion modules get through {@link HoldingLimiter#of}), kept at
     * {@link #companionKey companionKey(name, key, "hold")} (with the plan in the hash tag for a plan's
     * limiter). The decision's script reads the hold in its one round trip, and rejects without touching
     * the limiter's state while it lasts; such decisions are never batched and neither lease nor take
     * leased permits, so a hold stored by any instance stops every instance's next decision.
     *
     * @throws IllegalArgumentException when {@code limiter} is not one of this factory's
     */
    HoldingLimiter holding(RateLimiter limiter) {
        HoldingLimiter holding = HoldingLimiter.of(limiter, this);
        if (holding == null) {
            throw new IllegalArgumentException("Limiter " + limiter + " is not one of this factory's, so it cannot read holds in Redis");
        }
        return holding;
    }

    /** Whether {@code limiter} decides on this factory's Redis. */
    boolean owns(RedisRateLimiter limiter) {
        return limiter.decidesOn(availability);
    }

    @Override
    public RateLimiter create(String name, RateLimiterConfig config) {
        return new RedisRateLimiter(name, null, config, tuner, redis, reactive, keyPrefix, clock, availability, uncharged, listener, denyCache,
                batches, reactiveBatches);
    }

    /** A plan's limiter: the plan is part of each of its Redis keys, so no other plan reads its state. */
    @Override
    public RateLimiter create(String name, String plan, RateLimiterConfig config) {
        return new RedisRateLimiter(name, LimiterArguments.checkPlan(plan), config, tuner, redis, reactive, keyPrefix, clock, availability,
                uncharged, listener, denyCache, batches, reactiveBatches);
    }
}
