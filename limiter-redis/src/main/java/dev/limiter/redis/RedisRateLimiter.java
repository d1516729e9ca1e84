package dev.limiter.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimiterClock;
import dev.limiter.Outcome;
import dev.limiter.Quota;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RefundFailedException;
import dev.limiter.SettleFailedException;
import dev.limiter.ResetFailedException;
import dev.limiter.Retuning;
import dev.limiter.internal.CurrentTuning;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.internal.LimiterArguments;
import dev.limiter.internal.algorithm.LocalAlgorithm;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.RedisOperations;

/**
 * A limiter whose state lives in Redis: each decision is one EVALSHA of the algorithm's script.
 * With a lease configured, a call on a hot key sends the lease script instead, still one EVALSHA,
 * and permits leased by it are handed out here ({@link LocalLeases}) before Redis is asked.
 * While Redis fails, its failure policy decides, so an outage never reaches the caller. Given
 * reactive operations, {@link #tryAcquireAsync} sends the same script without blocking. Retuned, it
 * decides by the new configuration from the next call on, it and every view of it alike.
 */
final class RedisRateLimiter implements RateLimiter, HoldingLimiter.Holdable {

    private final String name;

    /** The plan this limiter decides for; null for a limiter without plans. */
    private final @Nullable String plan;

    /** What it decides by now; replaced whole by a retune, and shared with its views. */
    private final CurrentTuning<Tuning> tuning;

    /** Makes the tuning of a configuration. */
    private final Tuner tuner;

    private final BlockingScripts redis;

    /** Sends blocking decisions that meet in flight as one script call; null to send each alone. */
    private final @Nullable ScriptBatches batches;

    /** Sends asynchronous decisions that meet in flight as one script call; null to send each alone. */
    private final @Nullable ReactiveBatches reactiveBatches;

    /** The same Redis, for what is not a script: resetting a key. */
    private final RedisOperations<String, String> operations;

    /** The same Redis through the reactive API, for asynchronous decisions; null to decide them blocking. */
    private final @Nullable ReactiveScripts reactive;

    private final String keyHead;

    private final @Nullable LimiterClock clock;

    private final RedisAvailability availability;

    /** Permits admitted without Redis, charged to it before the keys that owe them are decided on Redis again. */
    private final UnchargedPermits uncharged;

    private final DecisionListener listener;

    /** The outcome its listener hears for a rejection. */
    private final Outcome rejectedAs;

    /** Rejections remembered until their retry-after; null when the factory has no deny cache. */
    private final @Nullable LocalDenyCache denyCache;

    /** Scripts sent to Redis by this limiter and its views: for tests, which count round trips. */
    private final LongAdder scriptCalls;

    /** Retry-after of a call denied because Redis fails: when it is worth trying again. */
    private static final long DENIED_RETRY_MICROS = 1_000_000;

    /**
     * @param plan the plan of limiter {@code name} this limiter decides for, kept in its keys; null for
     *     a limiter without plans
     * @param tuner makes the tuning of a configuration: its script, keys and failure policy
     */
    RedisRateLimiter(String name, @Nullable String plan, RateLimiterConfig config, Tuner tuner, RedisOperations<String, String> redis,
            @Nullable ReactiveScripts reactive, String keyPrefix, @Nullable LimiterClock clock, RedisAvailability availability,
            UnchargedPermits uncharged, DecisionListener listener, @Nullable LocalDenyCache denyCache, @Nullable ScriptBatches batches,
            @Nullable ReactiveBatches reactiveBatches) {
        this.name = LimiterArguments.checkName(name);
        this.plan = (plan != null) ? LimiterArguments.checkPlan(plan) : null;
        this.tuner = tuner;
        this.tuning = new CurrentTuning<>(name, tuner.tuning(name, config), Tuning::config);
        this.redis = new BlockingScripts(redis);
        this.batches = batches;
        this.reactiveBatches = reactiveBatches;
        this.operations = redis;
        this.reactive = reactive;
        this.keyHead = (plan != null) ? RedisKeys.head(RedisKeys.checkPrefix(keyPrefix), name, plan)
                : RedisKeys.head(RedisKeys.checkPrefix(keyPrefix), name);
        this.clock = clock;
        this.availability = availability;
        this.uncharged = uncharged;
        this.listener = listener;
        this.rejectedAs = Outcome.REJECTED;
        this.denyCache = denyCache;
        this.scriptCalls = new LongAdder();
    }

    /** {@code limiter}, on the same state and tuning, with its rejections heard as {@code rejectedAs}. */
    private RedisRateLimiter(RedisRateLimiter limiter, Outcome rejectedAs) {
        this.name = limiter.name;
        this.plan = limiter.plan;
        this.tuning = limiter.tuning;
        this.tuner = limiter.tuner;
        this.redis = limiter.redis;
        this.batches = limiter.batches;
        this.reactiveBatches = limiter.reactiveBatches;
        this.operations = limiter.operations;
        this.reactive = limiter.reactive;
        this.keyHead = limiter.keyHead;
        this.clock = limiter.clock;
        this.availability = limiter.availability;
        this.uncharged = limiter.uncharged;
        this.listener = limiter.listener;
        this.rejectedAs = rejectedAs;
        this.denyCache = limiter.denyCache;
        this.scriptCalls = limiter.scriptCalls;
    }

    /**
     * Everything a configuration decides in this limiter, made once per configuration: read once per
     * call, so a call is decided by one configuration from start to end.
     *
     * @param config the configuration
     * @param script its algorithm's script
     * @param codec its arguments and replies
     * @param keyTail the end of its keys: the algorithm's tag and the fingerprint of the state
     * @param policy what decides while Redis fails
     * @param shares what {@link FailurePolicy#LOCAL} decides from; null for the other policies
     * @param leases the permits this instance leased of hot keys; null when the configuration does not lease
     * @param leaseScript the algorithm's lease script; null when the configuration does not lease
     */
    record Tuning(RateLimiterConfig config, LuaScript script, ScriptCodec codec, String keyTail, FailurePolicy policy,
            @Nullable LocalShares shares, @Nullable LocalLeases leases, @Nullable LuaScript leaseScript) {

        /** The shares {@link FailurePolicy#LOCAL} decides from, which a tuning of that policy always has. */
        LocalShares localShares() {
            if (shares == null) {
                throw new IllegalStateException("The local failure policy needs local shares");
            }
            return shares;
        }
    }

    /** Makes the tuning of a configuration, with the factory's defaults and local limiters. */
    static final class Tuner {

        private final FailurePolicy defaultPolicy;

        private final InMemoryRateLimiterFactory local;

        private final LimiterClock clock;

        private final IntSupplier instances;

        /** The time leases expire by: the factory's clock, else monotonic time. */
        private final LimiterClock leaseClock;

        Tuner(FailurePolicy defaultPolicy, InMemoryRateLimiterFactory local, LimiterClock clock, IntSupplier instances,
                LimiterClock leaseClock) {
            this.defaultPolicy = defaultPolicy;
            this.local = local;
            this.clock = clock;
            this.instances = instances;
            this.leaseClock = leaseClock;
        }

        Tuning tuning(String name, RateLimiterConfig config) {
            FailurePolicy policy = (config.onRedisFailure() != null) ? config.onRedisFailure() : defaultPolicy;
            // Shares start from nothing Redis said under the old configuration: its remaining counts are of other limits.
            LocalShares shares = (policy == FailurePolicy.LOCAL)
                    ? new LocalShares(name, config, local, clock, instances, local.maxKeys()) : null;
            ScriptCodec codec = ScriptCodec.of(config);
            // Leases start from nothing too: permits leased under the old configuration are left to expire unused.
            boolean leasing = config.lease() != null;
            return new Tuning(config, LuaScript.of(config.algorithm()), codec, RedisKeys.tail(config.algorithm()) + ":" + codec.fingerprint(),
                    policy, shares, leasing ? new LocalLeases(config, leaseClock, local.maxKeys()) : null,
                    leasing ? LeaseScript.of(config.algorithm()) : null);
        }
    }

    @Override
    public RateLimiter reportingRejectionsAs(Outcome outcome) {
        return (outcome == rejectedAs) ? this : new RedisRateLimiter(this, outcome);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RateLimiterConfig config() {
        return tuning.config();
    }

    /**
     * Decides by {@code config} from the next call on. Keys keep their state when
     * {@link RateLimiterConfig#keepsStateOf} says so, the fingerprint in them being the same; otherwise
     * the keys of the new configuration are read, and the old ones expire. What this instance remembers
     * of the old configuration's answers (local deny cache, local shares) is forgotten.
     */
    @Override
    public Retuning retune(RateLimiterConfig config) {
        return tuning.retune(config, (previous, retuning) -> tuner.tuning(name, retuning.current()), (retuning) -> {
            if (denyCache != null) {
                // Rejections by the old limits would hold back calls the new ones admit.
                denyCache.forgetAll(keyHead);
            }
        });
    }

    /** The Redis key holding the state of {@code key}. */
    String redisKey(String key) {
        return redisKey(key, tuning.get());
    }

    private String redisKey(String key, Tuning tuned) {
        return keyHead + RedisKeys.escape(key) + tuned.keyTail();
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
        LimiterArguments.checkPermits(permits);
        Tuning tuned = tuning.get();
        String redisKey = redisKey(key, tuned);
        Route route = beforeRedis(tuned, redisKey, key, permits, listener, true, true);
        Decision decided = route.decision();
        if (decided != null) {
            return decided;
        }
        // Only a decision that goes to Redis is started: what listeners time or trace is the round trip.
        DecisionListener heard = listener.onStart(this);
        try {
            return decide(tuned, redisKey, key, permits, route.leaseCall(), heard);
        }
        catch (RuntimeException ex) {
            heard.onDecision(DecisionEvent.failed(this, ex));
            throw ex;
        }
    }

    private Decision decide(Tuning tuned, String redisKey, String key, long permits, LocalLeases.@Nullable Call leaseCall,
            DecisionListener heard) {
        boolean answered = false;
        try {
            List<?> reply;
            long start = System.nanoTime();
            try {
                scriptCalls.increment();
                reply = sendWhenConnected(() -> {
                    if (leaseCall != null) {
                        // A lease call is never batched: it runs the algorithm twice, for this caller alone.
                        return redis.execute(Objects.requireNonNull(tuned.leaseScript()), redisKey, leaseArgs(tuned, permits));
                    }
                    Long now = now();
                    return (batches != null) ? batches.execute(tuned.script(), tuned.codec(), redisKey, now, permits)
                            : redis.execute(tuned.script(), redisKey, tuned.codec(), now, permits);
                });
            }
            catch (RuntimeException ex) {
                // A timed-out script may have been applied: it is never sent again, the policy decides
                // this call, and the availability judges whether Redis is out or this call alone failed.
                return afterFailure(tuned, redisKey, key, permits, heard, ex);
            }
            availability.succeeded();
            if (leaseCall != null) {
                Objects.requireNonNull(tuned.leases()).leased(leaseCall, reply);
                answered = true;
            }
            return fromRedis(tuned, redisKey, key, permits, reply, System.nanoTime() - start, heard);
        }
        finally {
            if (leaseCall != null && !answered) {
                // Not answered: the next call on the key may lease.
                Objects.requireNonNull(tuned.leases()).failed(leaseCall);
            }
        }
    }

    /**
     * Where the steps before Redis leave a call: decided without it ({@code decision}, told to the
     * listener already), or to be sent, as the lease script when {@code leaseCall} is not null, else as
     * the algorithm's script.
     */
    private record Route(@Nullable Decision decision, LocalLeases.@Nullable Call leaseCall) {

        /** To Redis with the algorithm's script: the common case, with no object made per call. */
        static final Route SCRIPT = new Route(null, null);
    }

    /**
     * The steps of a decision before Redis, the same for blocking and asynchronous calls: permits
     * handed out from a live lease, a rejection the local deny cache remembers, and the failure
     * policy's decision while Redis is out or the key owes permits admitted without it. A lease call
     * not sent leaves the key free to lease again.
     *
     * @param heard what hears a decision made here: the limiter's listener, not started, since none of
     *     these leaves the process
     * @param mayBlock whether this caller may charge what the key owes itself, blocking
     * @param mayLease whether the call may take leased permits or lease; false for a decision that reads a
     *     hold, which permits leased earlier must not pass by
     * @throws RuntimeException what a step failed with, told to {@code heard} first as a failed decision
     */
    private Route beforeRedis(Tuning tuned, String redisKey, String key, long permits, DecisionListener heard, boolean mayBlock,
            boolean mayLease) {
        try {
            return stepsBeforeRedis(tuned, redisKey, key, permits, heard, mayBlock, mayLease);
        }
        catch (RuntimeException ex) {
            heard.onDecision(DecisionEvent.failed(this, ex));
            throw ex;
        }
    }

    private Route stepsBeforeRedis(Tuning tuned, String redisKey, String key, long permits, DecisionListener heard, boolean mayBlock,
            boolean mayLease) {
        LocalLeases leases = mayLease ? tuned.leases() : null;
        LocalLeases.Call call = (leases != null) ? leases.call(redisKey, permits) : null;
        Decision handedOut = (call != null) ? call.decision() : null;
        if (handedOut != null) {
            // Handed out from a live lease, even while Redis fails: those permits were taken in Redis.
            heard(heard, handedOut, -1);
            return new Route(handedOut, null);
        }
        LocalLeases.Call leaseCall = (call != null && call.lease()) ? call : null;
        Decision decision = null;
        boolean toRedis = false;
        try {
            decision = remembered(redisKey, permits, heard);
            if (decision == null) {
                decision = withoutRedisIfOut(tuned, redisKey, key, permits, heard, mayBlock);
            }
            toRedis = (decision == null);
        }
        finally {
            if (leaseCall != null && !toRedis) {
                // Never sent: the next call on the key may lease.
                Objects.requireNonNull(leases).failed(leaseCall);
            }
        }
        if (decision != null) {
            return new Route(decision, null);
        }
        return (leaseCall != null) ? new Route(null, leaseCall) : Route.SCRIPT;
    }

    /**
     * The decision of {@link #tryAcquire}, unless {@code holdKey} holds the key: the script reads the hold
     * (its KEYS[2]) in the same round trip and, while it lasts, rejects without touching the key's state.
     * Never batched, never leased: a hold another instance stored stops this call. The deny cache and the
     * failure policy answer as for any call (a hold is not read while Redis fails).
     */
    HoldingLimiter.Answer tryAcquireUnlessHeld(String key, long permits, String holdKey) {
        LimiterArguments.checkPermits(permits);
        Tuning tuned = tuning.get();
        String redisKey = redisKey(key, tuned);
        Route route = beforeRedis(tuned, redisKey, key, permits, listener, true, false);
        Decision decided = route.decision();
        if (decided != null) {
            return new HoldingLimiter.Answer(decided, false);
        }
        DecisionListener heard = listener.onStart(this);
        try {
            List<?> reply;
            long start = System.nanoTime();
            try {
                scriptCalls.increment();
                reply = sendWhenConnected(() -> redis.execute(tuned.script(), redisKey, holdKey, tuned.codec(), now(), permits));
            }
            catch (RuntimeException ex) {
                return new HoldingLimiter.Answer(afterFailure(tuned, redisKey, key, permits, heard, ex), false);
            }
            availability.succeeded();
            return answer(tuned, redisKey, key, permits, reply, System.nanoTime() - start, heard);
        }
        catch (RuntimeException ex) {
            heard.onDecision(DecisionEvent.failed(this, ex));
            throw ex;
        }
    }

    /** {@link #tryAcquireUnlessHeld} through the reactive API, as {@link #tryAcquireAsync} is to {@link #tryAcquire}. */
    CompletionStage<HoldingLimiter.Answer> tryAcquireUnlessHeldAsync(String key, long permits, String holdKey) {
        ReactiveScripts reactive = this.reactive;
        if (reactive == null) {
            return CompletableFuture.completedFuture(tryAcquireUnlessHeld(key, permits, holdKey));
        }
        LimiterArguments.checkPermits(permits);
        Tuning tuned = tuning.get();
        String redisKey = redisKey(key, tuned);
        Route route = beforeRedis(tuned, redisKey, key, permits, listener, false, false);
        Decision decided = route.decision();
        if (decided != null) {
            return CompletableFuture.completedFuture(new HoldingLimiter.Answer(decided, false));
        }
        DecisionListener heard = listener.onStart(this);
        CompletableFuture<List<?>> reply;
        long start = System.nanoTime();
        try {
            scriptCalls.increment();
            reply = reactive.execute(tuned.script(), List.of(redisKey, holdKey), Arrays.asList(args(tuned, permits)));
        }
        catch (RuntimeException ex) {
            // Never sent, or may have been: the policy decides, as for the blocking call.
            return CompletableFuture.completedFuture(new HoldingLimiter.Answer(afterFailure(tuned, redisKey, key, permits, heard, ex), false));
        }
        return reply.handle((answer, failure) -> {
            if (failure != null) {
                return new HoldingLimiter.Answer(afterFailure(tuned, redisKey, key, permits, heard, runtime(failure)), false);
            }
            availability.succeeded();
            try {
                return answer(tuned, redisKey, key, permits, answer, System.nanoTime() - start, heard);
            }
            catch (RuntimeException ex) {
                heard.onDecision(DecisionEvent.failed(this, ex));
                throw ex;
            }
        });
    }

    /**
     * The answer in the reply of a script that read a hold: the hold's rejection, which says nothing of
     * the key's state (neither remembered by the deny cache nor by the local shares, only told to the
     * listener), or the limiter's decision as {@link #fromRedis} takes it.
     */
    private HoldingLimiter.Answer answer(Tuning tuned, String redisKey, String key, long permits, List<?> reply, long redisNanos,
            DecisionListener heard) {
        if (!ScriptCodec.heldByHold(reply)) {
            return new HoldingLimiter.Answer(fromRedis(tuned, redisKey, key, permits, reply, redisNanos, heard), false);
        }
        Decision decision = tuned.codec().decision(reply);
        if (denyCache != null) {
            // A claim this caller may hold on a remembered rejection gets no answer of the key's state.
            denyCache.settle(redisKey);
        }
        heard(heard, decision, redisNanos);
        return new HoldingLimiter.Answer(decision, true);
    }

    /** The Redis key of state kept beside {@code key}'s, in its hash tag: {@code <head><key>}:companion:<kind>}. */
    String companionKey(String key, String kind) {
        return keyHead + RedisKeys.escape(key) + RedisKeys.companionTail(kind);
    }

    /** Whether this limiter decides on Redis as seen by {@code availability}: one of the factory's that has it. */
    boolean decidesOn(RedisAvailability availability) {
        return this.availability == availability;
    }

    @Override
    public @Nullable HoldingLimiter holding(Object factory) {
        return (factory instanceof RedisRateLimiterFactory redis && redis.owns(this)) ? new RedisHoldingLimiter(this) : null;
    }

    /** Whether this limiter uses Redis now. */
    boolean redisAvailable() {
        return availability.available();
    }

    /** The operations of this limiter's Redis, for the scripts of a holding view. */
    BlockingScripts scripts() {
        return redis;
    }

    /** The time scripts are given: null for Redis TIME. */
    @Nullable Long scriptNow() {
        return now();
    }

    /** The longest a blocking decision waits for a dropped connection to be made again before the policy decides it. */
    static final long RECONNECT_WAIT_NANOS = 100_000_000L;

    /**
     * Sends a script; if the client rejected it unsent because the connection dropped and is being made
     * again, sends it again once connected, waiting at most {@link #RECONNECT_WAIT_NANOS}. Never a
     * script that may have reached Redis: only one the client never wrote is sent again, so the call
     * after a dropped connection goes to Redis, not to the failure policy.
     */
    private List<?> sendWhenConnected(Supplier<List<?>> send) {
        long start = System.nanoTime();
        for (long pause = 1; ; pause = Math.min(pause * 2, 16)) {
            try {
                return send.get();
            }
            catch (RuntimeException ex) {
                if (!RedisAvailability.neverSent(ex) || !availability.mayReconnect() || System.nanoTime() - start >= RECONNECT_WAIT_NANOS) {
                    throw ex;
                }
            }
            try {
                Thread.sleep(pause);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the connection to Redis", ex);
            }
        }
    }

    /**
     * The same decision as {@link #tryAcquire(String, long)}, through the reactive API: the calling
     * thread only sends the script, and the stage completes on the thread that reads the reply. A
     * failing or slow Redis completes it with the failure policy's decision, never exceptionally.
     */
    @Override
    public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
        ReactiveScripts reactive = this.reactive;
        if (reactive == null) {
            return CompletableFuture.completedFuture(tryAcquire(key, permits));
        }
        LimiterArguments.checkPermits(permits);
        Tuning tuned = tuning.get();
        String redisKey = redisKey(key, tuned);
        Route route = beforeRedis(tuned, redisKey, key, permits, listener, false, true);
        Decision decided = route.decision();
        if (decided != null) {
            return CompletableFuture.completedFuture(decided);
        }
        DecisionListener heard = listener.onStart(this);
        try {
            return decideAsync(reactive, tuned, redisKey, key, permits, route.leaseCall(), heard);
        }
        catch (RuntimeException ex) {
            heard.onDecision(DecisionEvent.failed(this, ex));
            throw ex;
        }
    }

    private CompletionStage<Decision> decideAsync(ReactiveScripts reactive, Tuning tuned, String redisKey, String key, long permits,
            LocalLeases.@Nullable Call leaseCall, DecisionListener heard) {
        CompletableFuture<List<?>> reply = null;
        long start = System.nanoTime();
        try {
            scriptCalls.increment();
            if (leaseCall != null) {
                // A lease call is never batched: it runs the algorithm twice, for this caller alone.
                reply = reactive.execute(Objects.requireNonNull(tuned.leaseScript()), redisKey, Arrays.asList(leaseArgs(tuned, permits)));
            }
            else {
                reply = (reactiveBatches != null) ? reactiveBatches.execute(tuned.script(), tuned.codec(), redisKey, now(), permits)
                        : reactive.execute(tuned.script(), redisKey, Arrays.asList(args(tuned, permits)));
            }
        }
        catch (RuntimeException ex) {
            return CompletableFuture.completedFuture(afterFailure(tuned, redisKey, key, permits, heard, ex));
        }
        finally {
            if (reply == null && leaseCall != null) {
                // Never sent: the next call on the key may lease.
                Objects.requireNonNull(tuned.leases()).failed(leaseCall);
            }
        }
        return reply.handle((answer, failure) -> {
            if (leaseCall != null) {
                // First of all, so that nothing below can leave the key unable to lease.
                if (failure == null) {
                    Objects.requireNonNull(tuned.leases()).leased(leaseCall, answer);
                }
                else {
                    Objects.requireNonNull(tuned.leases()).failed(leaseCall);
                }
            }
            if (failure != null) {
                // As for the blocking call: never sent again, the policy decides.
                return afterFailure(tuned, redisKey, key, permits, heard, runtime(failure));
            }
            availability.succeeded();
            try {
                return fromRedis(tuned, redisKey, key, permits, answer, System.nanoTime() - start, heard);
            }
            catch (RuntimeException ex) {
                heard.onDecision(DecisionEvent.failed(this, ex));
                throw ex;
            }
        });
    }

    /**
     * The failure policy's decision while Redis is out, or while the key owes permits admitted without
     * Redis (they are charged to its state before Redis decides for it again); null when Redis decides.
     *
     * @param mayBlock whether this caller may charge what the key owes itself, blocking; an
     *     asynchronous caller leaves that to the background thread
     */
    private @Nullable Decision withoutRedisIfOut(Tuning tuned, String redisKey, String key, long permits, DecisionListener heard,
            boolean mayBlock) {
        if (!availability.available()) {
            Decision decision = availability.whileOut(() -> withoutRedis(tuned, redisKey, key, permits, heard));
            if (decision != null) {
                return decision;
            }
        }
        if (uncharged.owes(redisKey)) {
            if (!mayBlock) {
                availability.owed();
                return withoutRedis(tuned, redisKey, key, permits, heard);
            }
            // Charged first, by this caller, so that the key's next decision is Redis' again at once;
            // while another caller's charge is on its way, or this one failed, the policy decides.
            RuntimeException failure = uncharged.charge(redisKey, redis, clock);
            if (failure != null) {
                availability.failed(redisKey, failure);
            }
            if (failure != null || uncharged.owes(redisKey)) {
                return withoutRedis(tuned, redisKey, key, permits, heard);
            }
            availability.succeeded();
        }
        return null;
    }

    /** The rejection the local deny cache remembers for this request, told to the listener; null when Redis must decide. */
    private @Nullable Decision remembered(String redisKey, long permits, DecisionListener heard) {
        if (denyCache == null) {
            return null;
        }
        Decision remembered = denyCache.rejection(redisKey, permits);
        if (remembered != null) {
            heard(heard, remembered, -1);
        }
        return remembered;
    }

    /** Tells {@code heard} of {@code decision}, unless no one listens. */
    private void heard(DecisionListener heard, Decision decision, long redisNanos) {
        if (heard != DecisionListener.NONE) {
            heard.onDecision(DecisionEvent.of(this, decision, rejectedAs, redisNanos));
        }
    }

    /**
     * The decision in a script's reply: remembered if it rejects (deny cache), its quota remembered
     * for the local failure policy, told to the listener.
     */
    private Decision fromRedis(Tuning tuned, String redisKey, String key, long permits, List<?> reply, long redisNanos,
            DecisionListener heard) {
        Decision decision = tuned.codec().decision(reply);
        LocalShares shares = tuned.shares();
        if (shares != null) {
            if (availability.keepsToShares()) {
                // Other instances may still owe Redis what they admitted within their shares, or be admitting
                // them now unknown to this one: it stays within its own, from what Redis said before, until
                // all have charged and its heartbeats are answered.
                if (decision.allowed()) {
                    Decision share = shares.decide(key, permits);
                    if (!share.allowed()) {
                        decision = share;
                    }
                }
            }
            else {
                shares.observe(key, ScriptCodec.reportedLimit(reply) - 1, decision.remaining(), ScriptCodec.resetAfterMicros(reply));
            }
        }
        if (denyCache != null) {
            denyCache.remember(redisKey, permits, decision);
        }
        heard(heard, decision, redisNanos);
        return decision;
    }

    /** What a future failed with, unwrapped from the {@code CompletionException} a dependent stage sees. */
    static RuntimeException runtime(Throwable failure) {
        Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
        return (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
    }

    /** The script's arguments for a request of {@code permits}. */
    private String[] args(Tuning tuned, long permits) {
        return tuned.codec().arguments(now(), permits);
    }

    /** The time a script decides at: none, so that it reads Redis TIME and application clocks never matter; a test's clock if set. */
    private @Nullable Long now() {
        return (clock != null) ? clock.nowMicros() : null;
    }

    /** The lease script's arguments: the most permits to lease, then those of the algorithm's script. */
    private Object[] leaseArgs(Tuning tuned, long permits) {
        Object[] args = args(tuned, permits);
        Object[] leaseArgs = new Object[args.length + 1];
        leaseArgs[0] = Objects.requireNonNull(tuned.leases()).permitsArgument();
        System.arraycopy(args, 0, leaseArgs, 1, args.length);
        return leaseArgs;
    }

    /** Scripts this limiter (and its views) sent to Redis so far: decisions, leases and quotas. */
    long scriptCalls() {
        return scriptCalls.sum();
    }

    /** Permits of {@code key} leased here and usable now; 0 when the limiter does not lease. */
    long leased(String key) {
        Tuning tuned = tuning.get();
        LocalLeases leases = tuned.leases();
        return (leases != null) ? leases.left(redisKey(key, tuned)) : 0;
    }

    @Override
    public Quota quota(String key) {
        Tuning tuned = tuning.get();
        if (availability.available()) {
            String redisKey = redisKey(key, tuned);
            try {
                // No permits: the script decides nothing and writes nothing; its reply is the quota.
                scriptCalls.increment();
                return Quota.of(tuned.codec().decision(redis.execute(tuned.script(), redisKey, tuned.codec(), now(), 0)));
            }
            catch (RuntimeException ex) {
                availability.failed(redisKey, ex);
            }
        }
        long capacity = tuned.config().capacity(0);
        return switch (tuned.policy()) {
            case LOCAL -> tuned.localShares().quota(key);
            case ALLOW -> new Quota(capacity, capacity, Duration.ZERO, DecisionSource.FAILURE_POLICY);
            case DENY -> new Quota(capacity, 0, Duration.ZERO, DecisionSource.FAILURE_POLICY);
        };
    }

    /**
     * Deletes the key's state in Redis with one UNLINK (every script keeps all of a decision's state in
     * its one key, KEYS[1]), so every instance sees the key idle at once; then forgets what this
     * instance remembers of it (deny cache, local shares), which would otherwise keep rejecting it.
     * Other instances' deny caches still reject it until their remembered rejections end.
     */
    @Override
    public boolean reset(String key) {
        Tuning tuned = tuning.get();
        String redisKey = redisKey(key, tuned);
        if (!availability.available()) {
            throw new ResetFailedException(name, key, "Redis is unavailable (the limiters follow their failure policy); "
                    + "try again once it answers", null);
        }
        boolean existed;
        try {
            existed = Boolean.TRUE.equals(operations.unlink(redisKey));
        }
        catch (RuntimeException ex) {
            availability.failed(redisKey, ex);
            throw new ResetFailedException(name, key, "Redis failed (" + ex.getMessage() + "); a call that timed out may have "
                    + "reset the key all the same, try again once Redis answers", ex);
        }
        availability.succeeded();
        // The state that owed is gone: charging it would take permits from the fresh one.
        uncharged.forget(redisKey);
        if (denyCache != null) {
            denyCache.forget(redisKey);
        }
        LocalLeases leases = tuned.leases();
        if (leases != null) {
            // Permits leased from the deleted state would come on top of the fresh one's.
            leases.forget(redisKey);
        }
        LocalShares shares = tuned.shares();
        if (shares != null) {
            shares.forget(key);
        }
        return existed;
    }

    /**
     * Gives permits back with one EVALSHA of the algorithm's refund script, so every instance sees the
     * key's new state at once; then forgets this instance's remembered rejection of the key (deny
     * cache), which would otherwise keep rejecting it, and tells the local shares the new quota.
     * Other instances' deny caches still reject it until their remembered rejections end. Never sent
     * again after a failure: a refund that timed out may have been applied.
     */
    @Override
    public Quota refund(String key, long permits) {
        LimiterArguments.checkPermits(permits);
        Tuning tuned = tuning.get();
        String redisKey = redisKey(key, tuned);
        if (!availability.available()) {
            throw new RefundFailedException(name, key, permits, "Redis is unavailable (the limiters follow their failure policy); "
                    + "try again once it answers", null);
        }
        List<?> reply;
        try {
            reply = redis.execute(LuaScript.refundOf(tuned.config().algorithm()), redisKey, tuned.codec(), now(), permits);
        }
        catch (RuntimeException ex) {
            availability.failed(redisKey, ex);
            throw new RefundFailedException(name, key, permits, "Redis failed (" + ex.getMessage() + "); a call that timed out may "
                    + "have given the permits back all the same", ex);
        }
        return changed(tuned, key, redisKey, reply, true);
    }

    /**
     * The key's quota after Redis changed its state (a refund, a settlement): a change that gave permits back
     * forgets this instance's remembered rejection of the key (deny cache), which would otherwise keep
     * rejecting it; the local shares hear the new quota.
     */
    private Quota changed(Tuning tuned, String key, String redisKey, List<?> reply, boolean gaveBack) {
        availability.succeeded();
        if (gaveBack && denyCache != null) {
            denyCache.forget(redisKey);
        }
        Decision changed = tuned.codec().decision(reply);
        LocalShares shares = tuned.shares();
        if (shares != null) {
            shares.observe(key, ScriptCodec.reportedLimit(reply) - 1, changed.remaining(), ScriptCodec.resetAfterMicros(reply));
        }
        return Quota.of(changed);
    }

    /**
     * Settles with one EVALSHA: of the algorithm's refund script when the call cost less than it reserved,
     * of its charge script ({@code charge.lua}) when it cost more, so every instance sees the key's new
     * state at once; nothing when it cost what it reserved. Straight to Redis, whatever this instance
     * leases or batches: leased permits are this instance's already, and a settlement decides nothing. A
     * refund forgets this instance's remembered rejection of the key, as {@link #refund} does; the local
     * shares hear the new quota. Never sent again after a failure: a settlement that timed out may have
     * been applied.
     */
    @Override
    public @Nullable Quota settle(String key, long reserved, long actual) {
        Settlement settlement = settlement(key, reserved, actual);
        if (settlement == null) {
            return null;
        }
        List<?> reply;
        try {
            reply = redis.execute(settlement.script(), settlement.redisKey(), (Object[]) settlement.args());
        }
        catch (RuntimeException ex) {
            throw settlement.failed(ex);
        }
        return settlement.settled(reply);
    }

    /**
     * The same settlement as {@link #settle}, through the reactive API: the calling thread only sends the
     * script, and the stage completes on the thread that reads the reply.
     */
    @Override
    public CompletionStage<@Nullable Quota> settleAsync(String key, long reserved, long actual) {
        ReactiveScripts reactive = this.reactive;
        if (reactive == null) {
            return RateLimiter.super.settleAsync(key, reserved, actual);
        }
        Settlement settlement;
        try {
            settlement = settlement(key, reserved, actual);
        }
        catch (SettleFailedException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        if (settlement == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<List<?>> reply;
        try {
            reply = reactive.execute(settlement.script(), settlement.redisKey(), Arrays.asList(settlement.args()));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(settlement.failed(ex));
        }
        // Completed by hand, so that callbacks see the SettleFailedException itself, not wrapped.
        CompletableFuture<@Nullable Quota> settled = new CompletableFuture<>();
        reply.whenComplete((answer, failure) -> {
            try {
                if (failure != null) {
                    settled.completeExceptionally(settlement.failed(runtime(failure)));
                }
                else {
                    settled.complete(settlement.settled(answer));
                }
            }
            catch (RuntimeException ex) {
                settled.completeExceptionally(ex);
            }
        });
        return settled;
    }

    /**
     * What settling takes, checked: one EVALSHA of the algorithm's refund script when the call cost less
     * than it reserved, of its charge script ({@code charge.lua}) when it cost more; null when it cost what
     * it reserved.
     *
     * @throws SettleFailedException while Redis is unavailable
     */
    private @Nullable Settlement settlement(String key, long reserved, long actual) {
        LimiterArguments.checkSettlement(reserved, actual);
        LimiterArguments.checkKey(key);
        if (actual == reserved) {
            return null;
        }
        Tuning tuned = tuning.get();
        boolean charge = actual > reserved;
        long permits = charge ? actual - reserved : reserved - actual;
        long chunk = charge ? LocalAlgorithm.chargeChunk(tuned.config(), permits) : 0;
        String redisKey = redisKey(key, tuned);
        if (!availability.available()) {
            throw new SettleFailedException(name, key, reserved, actual, "Redis is unavailable (the limiters follow their failure "
                    + "policy); nothing was settled", null);
        }
        String[] args = tuned.codec().arguments(now(), permits);
        if (charge) {
            args[2] = Long.toString(chunk);
        }
        LuaScript script = charge ? LuaScript.chargeOf(tuned.config().algorithm()) : LuaScript.refundOf(tuned.config().algorithm());
        return new Settlement(tuned, key, redisKey, reserved, actual, script, args);
    }

    /** A settlement on its way to Redis, and what becomes of its reply or failure. */
    private final class Settlement {

        private final Tuning tuned;

        private final String key;

        private final String redisKey;

        private final long reserved;

        private final long actual;

        private final LuaScript script;

        private final String[] args;

        Settlement(Tuning tuned, String key, String redisKey, long reserved, long actual, LuaScript script, String[] args) {
            this.tuned = tuned;
            this.key = key;
            this.redisKey = redisKey;
            this.reserved = reserved;
            this.actual = actual;
            this.script = script;
            this.args = args;
        }

        LuaScript script() {
            return script;
        }

        String redisKey() {
            return redisKey;
        }

        String[] args() {
            return args;
        }

        /** Redis failed: told to the availability check; never sent again, as it may have been applied. */
        SettleFailedException failed(RuntimeException ex) {
            availability.failed(redisKey, ex);
            return new SettleFailedException(name, key, reserved, actual, "Redis failed (" + ex.getMessage() + "); a call that timed "
                    + "out may have settled all the same", ex);
        }

        /** Redis settled: what gave permits back forgets the remembered rejection, as {@link #refund} does. */
        Quota settled(List<?> reply) {
            return changed(tuned, key, redisKey, reply, actual < reserved);
        }
    }

    /**
     * The decision of the failure policy for a call that failed. Under {@link FailurePolicy#LOCAL}, a
     * call that failed while Redis still counts as in use (it timed out, its connection dropped on its
     * way, or the client could not send it before the connection was made again) is rejected: it may
     * have run in Redis or not, Redis may have rejected it, and the other instances decide on Redis
     * without knowing: a share admitted now could be taken from Redis by them as well. A permit too
     * few, never one too many. Once Redis counts as out, the policy decides as {@link #withoutRedis} says.
     */
    private Decision afterFailure(Tuning tuned, String redisKey, String key, long permits, DecisionListener heard, RuntimeException ex) {
        boolean out = availability.failed(redisKey, ex);
        if (!out && tuned.policy() == FailurePolicy.LOCAL) {
            return rejectedUncounted(tuned, redisKey, heard);
        }
        return withoutRedis(tuned, redisKey, key, permits, heard);
    }

    /** The local policy's rejection of a call it cannot admit without risking a permit too many. */
    private Decision rejectedUncounted(Tuning tuned, String redisKey, DecisionListener heard) {
        if (denyCache != null) {
            denyCache.settle(redisKey);
        }
        Decision rejected = localRejection(tuned.config());
        heard(heard, rejected, -1);
        return rejected;
    }

    /** A rejection by the local policy where admitting could be a permit too many; retried after a second. */
    private static Decision localRejection(RateLimiterConfig config) {
        return Decision.of(config, 0, 1, 0, 0, DENIED_RETRY_MICROS, 0, 0, 0, DecisionSource.LOCAL_FALLBACK);
    }

    /**
     * The decision of the failure policy, while Redis fails. A claim this caller may hold on a remembered
     * rejection of the key gets no answer from Redis, so the others stop waiting for one.
     */
    private Decision withoutRedis(Tuning tuned, String redisKey, String key, long permits, DecisionListener heard) {
        if (denyCache != null) {
            denyCache.settle(redisKey);
        }
        RateLimiterConfig config = tuned.config();
        long capacity = config.capacity(0);
        Decision decision = switch (tuned.policy()) {
            // Until the other instances have found this one silent, they decide on Redis alone: no share yet.
            case LOCAL -> availability.othersKeepToShares() ? tuned.localShares().decide(key, permits) : localRejection(config);
            case ALLOW -> Decision.of(config, 1, 1, capacity, 0, 0, 0, 0, 0, DecisionSource.FAILURE_POLICY);
            case DENY -> Decision.of(config, 0, 1, 0, 0, DENIED_RETRY_MICROS, 0, 0, 0, DecisionSource.FAILURE_POLICY);
        };
        if (decision.allowed()) {
            if (!uncharged.owe(redisKey, tuned, permits)) {
                if (tuned.policy() == FailurePolicy.LOCAL) {
                    // Too many keys owe already: a permit that could not be charged later is not admitted.
                    decision = localRejection(config);
                }
            }
            else {
                availability.owed();
            }
        }
        heard(heard, decision, -1);
        return decision;
    }

    /** The failure policy this limiter follows while Redis fails. */
    FailurePolicy failurePolicy() {
        return tuning.get().policy();
    }

    @Override
    public String toString() {
        return "RedisRateLimiter[" + name + ((plan != null) ? ", plan " + plan : "") + ", " + config() + "]";
    }
}
