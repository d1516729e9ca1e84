package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntSupplier;

import dev.limiter.Algorithm;
import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.FailurePolicy;
import dev.limiter.LimiterClock;
import dev.limiter.Permit;
import dev.limiter.RateLimiterFactory;
import dev.limiter.internal.ConcurrencySlots;
import dev.limiter.internal.LimiterArguments;
import dev.limiter.internal.algorithm.Scripts;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A concurrency limit in Redis: one script call takes a slot or queues the caller's ticket
 * (concurrency-take.lua), first come first served across instances; one releases a slot, one takes a ticket
 * that gave up out of the queue, and each instance renews the slots it holds, one call per key, every third
 * of the lease. While Redis fails,
 * the failure policy decides: {@link FailurePolicy#ALLOW} admits without a slot, {@link FailurePolicy#DENY}
 * rejects, {@link FailurePolicy#LOCAL} takes a slot of an in-memory limit of this instance's share of the
 * limit (the limit divided by the instances counted alive when Redis first failed, rounded up).
 */
final class RedisConcurrencyLimiter extends ConcurrencySlots {

    private static final Log logger = LogFactory.getLog(RedisConcurrencyLimiter.class);

    static final LuaScript TAKE = script("concurrency-take.lua");

    static final LuaScript RELEASE = script("concurrency-release.lua");

    static final LuaScript RENEW = script("concurrency-renew.lua");

    static final LuaScript COUNT = script("concurrency-count.lua");

    static final LuaScript LEAVE = script("concurrency-leave.lua");

    /** Ends the key of every concurrency limit: never the tail of an algorithm's key ({@link RedisKeys#tail}). */
    static final String TAIL = "}:cc";

    /**
     * Ends the key of a concurrency limit's waiters' tickets by arrival: never {@link #TAIL}, an algorithm's
     * tail ({@link RedisKeys#tail}) or a companion's ({@link RedisKeys#companionTail}).
     */
    static final String QUEUE_TAIL = "}:ccq";

    /** Ends the key of a concurrency limit's waiters' tickets by lease: no other key's tail either. */
    static final String TICKETS_TAIL = "}:cct";

    private final BlockingScripts scripts;

    private final String head;

    private final @Nullable LimiterClock clock;

    private final FailurePolicy onFailure;

    private final RateLimiterFactory local;

    private final IntSupplier instances;

    private final String leaseMicros;

    private final String limit;

    private final String ticketLeaseMicros;

    private volatile @Nullable ConcurrencyLimiter localShare;

    /** Whether the last call to Redis failed, so that an outage is logged once, not per call. */
    private volatile boolean failing;

    RedisConcurrencyLimiter(String name, ConcurrencyLimiterConfig config, BlockingScripts scripts, String keyPrefix,
            @Nullable LimiterClock clock, FailurePolicy defaultPolicy, RateLimiterFactory local, IntSupplier instances,
            DecisionListener listener) {
        super(name, config, listener);
        this.scripts = scripts;
        this.head = RedisKeys.head(keyPrefix, name);
        this.clock = clock;
        this.onFailure = (config.onRedisFailure() != null) ? config.onRedisFailure() : defaultPolicy;
        this.local = local;
        this.instances = instances;
        this.leaseMicros = Long.toString(config.leaseMillis() * 1_000L);
        this.limit = Long.toString(config.limit());
        this.ticketLeaseMicros = Long.toString(TICKET_LEASE.toNanos() / 1_000L);
    }

    private static LuaScript script(String file) {
        // Names no algorithm by {algorithm}: any one assembles it.
        return LuaScript.of(Scripts.assemble("/dev/limiter/redis/" + file, Algorithm.FIXED_WINDOW));
    }

    /** The Redis key of {@code key}'s slots. */
    String redisKey(String key) {
        return head + RedisKeys.escape(key) + TAIL;
    }

    /** The Redis key of {@code key}'s waiters' tickets by arrival: the same hash tag as its slots. */
    String queueKey(String key) {
        return head + RedisKeys.escape(key) + QUEUE_TAIL;
    }

    /** The Redis key of {@code key}'s waiters' tickets by lease: the same hash tag as its slots. */
    String ticketsKey(String key) {
        return head + RedisKeys.escape(key) + TICKETS_TAIL;
    }

    /** Runs {@code script} on the keys then the arguments, UTF-8 encoded. */
    private List<?> execute(LuaScript script, String[] keys, String... args) {
        byte[][] keysAndArgs = new byte[keys.length + args.length][];
        for (int i = 0; i < keys.length; i++) {
            keysAndArgs[i] = keys[i].getBytes(StandardCharsets.UTF_8);
        }
        for (int i = 0; i < args.length; i++) {
            keysAndArgs[keys.length + i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return scripts.execute(script, keys.length, keysAndArgs);
    }

    private String now() {
        return (clock != null) ? Long.toString(clock.nowMicros()) : "";
    }

    @Override
    protected @Nullable Permit take(String key, @Nullable String ticket) {
        String slot = newSlot();
        List<?> reply;
        try {
            reply = execute(TAKE, new String[] {redisKey(key), queueKey(key), ticketsKey(key)},
                    now(), slot, limit, leaseMicros, (ticket != null) ? ticket : "", ticketLeaseMicros);
        }
        catch (RuntimeException ex) {
            if (Thread.currentThread().isInterrupted()) {
                // The caller was interrupted, Redis did not fail: no slot, and a waiter gives up (and leaves).
                return null;
            }
            return failed(key, ex);
        }
        if (failing) {
            failing = false;
            logger.info("Concurrency limiter '" + name() + "' reaches Redis again");
        }
        return (((Number) reply.get(0)).longValue() == 1) ? hold(key, slot) : null;
    }

    private @Nullable Permit failed(String key, RuntimeException ex) {
        if (!failing) {
            failing = true;
            logger.warn("Concurrency limiter '" + name() + "' cannot reach Redis, deciding by its failure policy "
                    + onFailure.name().toLowerCase(java.util.Locale.ROOT) + " until it can: " + ex);
        }
        return switch (onFailure) {
            case ALLOW -> unheld(key);
            case DENY -> refused(DecisionSource.FAILURE_POLICY);
            case LOCAL -> localShare().tryAcquire(key).map(this::counted).orElse(refused(DecisionSource.LOCAL_FALLBACK));
        };
    }

    private ConcurrencyLimiter localShare() {
        ConcurrencyLimiter share = localShare;
        if (share == null) {
            synchronized (this) {
                share = localShare;
                if (share == null) {
                    int alive = Math.max(1, instances.getAsInt());
                    long own = Math.max(1, (config().limit() + alive - 1) / alive);
                    share = local.createConcurrencyLimiter(name(), new ConcurrencyLimiterConfig(own, config().lease(),
                            java.time.Duration.ZERO, null));
                    localShare = share;
                }
            }
        }
        return share;
    }

    /** One round trip; throws when Redis cannot be reached: no failure policy guesses a count. */
    @Override
    public int inFlight(String key) {
        LimiterArguments.checkKey(key);
        List<?> reply = scripts.execute(COUNT, redisKey(key), new Object[] {now()});
        return ((Number) reply.get(0)).intValue();
    }

    @Override
    protected void leave(String key, String ticket) {
        execute(LEAVE, new String[] {queueKey(key), ticketsKey(key)}, ticket);
    }

    @Override
    protected void release(String key, String slot) {
        scripts.execute(RELEASE, redisKey(key), new Object[] {slot});
    }

    @Override
    protected void renew(String key, List<String> slots) {
        Object[] args = new Object[2 + slots.size()];
        args[0] = now();
        args[1] = leaseMicros;
        for (int i = 0; i < slots.size(); i++) {
            args[2 + i] = slots.get(i);
        }
        scripts.execute(RENEW, redisKey(key), args);
    }

    /** Renews every slot this instance holds now, as its renewer does every third of the lease: for tests. */
    void renewNow() {
        renewAll();
    }

    @Override
    protected DecisionSource source() {
        return DecisionSource.REDIS;
    }

    @Override
    public void close() {
        super.close();
        ConcurrencyLimiter share = localShare;
        if (share != null) {
            share.close();
        }
    }

    @Override
    public String toString() {
        return "RedisConcurrencyLimiter[" + name() + ", " + config() + "]";
    }
}
