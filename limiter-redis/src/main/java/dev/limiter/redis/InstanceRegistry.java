package dev.limiter.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.LongSupplier;

import dev.limiter.LimiterClock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Counts the application instances that share the limits: each announces itself in Redis with a
 * heartbeat (one script call every interval, never per decision) and counts as alive for three
 * intervals after it. While Redis fails, the count last seen is what each limit is divided by.
 *
 * <p>Each heartbeat also says whether the instance owes Redis nothing, every permit its failure
 * policy admitted being charged; an instance returning from an outage asks until every other one
 * alive has said so since it returned ({@link #othersOwing}), so that no instance decides on Redis
 * state that still lacks permits another one admitted meanwhile.
 */
final class InstanceRegistry {

    private static final Log logger = LogFactory.getLog(InstanceRegistry.class);

    @SuppressWarnings("rawtypes")
    static final RedisScript<List> HEARTBEAT = RedisScript.of(new ClassPathResource("dev/limiter/redis/instances.lua", InstanceRegistry.class.getClassLoader()), List.class);

    /** Heartbeats an instance may miss before it no longer counts. */
    static final int MISSED_HEARTBEATS = 3;

    /**
     * The least time an instance counts as alive after its heartbeat, however short the interval: an
     * outage of a few seconds, in which no instance can beat, must not make them all expire.
     */
    static final Duration LEAST_ALIVE = Duration.ofSeconds(15);

    private final RedisOperations<String, String> redis;

    private final String key;

    /** The heartbeat at which each instance last owed Redis nothing; same hash tag as {@link #key}. */
    private final String cleanKey;

    /** The number of the last heartbeat of any instance; same hash tag as {@link #key}. */
    private final String beatsKey;

    /** When each instance last beat; same hash tag as {@link #key}. */
    private final String seenKey;

    /**
     * Heartbeats an instance alive may miss before the others count it silent: cut off from Redis and
     * deciding by its failure policy, or dead. They then keep within their shares until it has charged.
     */
    static final int SILENT_HEARTBEATS = 2;

    /** Other instances alive and silent at this instance's last heartbeat. */
    private volatile int silent;

    /** When this instance's last answered heartbeat was answered (nanoTime), or {@link #NEVER}. */
    private volatile long lastBeatNanos = NEVER;

    /**
     * When this instance's last answered heartbeat was sent (nanoTime), or {@link #NEVER}: what this
     * instance knows of the others is at least as recent as that.
     */
    private volatile long lastBeatSentNanos = NEVER;

    /** Told when a heartbeat finds other instances silent, before this instance counts as informed by it. */
    private volatile Runnable whenOthersSilent = () -> {
    };

    private static final long NEVER = Long.MIN_VALUE;

    private final String id = UUID.randomUUID().toString();

    private final Duration interval;

    private final @Nullable LimiterClock clock;

    /** The number of instances configured instead of counted, or 0 to count them. */
    private final int configured;

    private volatile int counted = 1;

    /** The count held while an outage is settled, else 0. */
    private volatile int held;

    private volatile boolean leaving;

    /** This process's monotonic time, for how long ago heartbeats were answered. */
    private final LongSupplier nanoTime;

    /**
     * @param clock time passed to the script, or null to use Redis TIME
     * @param configured instances to divide by instead of those counted, or 0 to count them
     */
    InstanceRegistry(RedisOperations<String, String> redis, String keyPrefix, Duration interval, @Nullable LimiterClock clock,
            int configured) {
        this(redis, keyPrefix, interval, clock, configured, System::nanoTime);
    }

    /** @param nanoTime this process's monotonic time in nanoseconds: {@code System::nanoTime}, or a test's */
    InstanceRegistry(RedisOperations<String, String> redis, String keyPrefix, Duration interval, @Nullable LimiterClock clock,
            int configured, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.redis = redis;
        // A tag of its own: no limiter's key can equal it, since theirs hold "<name>:" inside the braces.
        this.key = keyPrefix + ":{instances}";
        this.cleanKey = key + ":clean";
        this.beatsKey = key + ":beats";
        this.seenKey = key + ":seen";
        this.interval = interval;
        this.clock = clock;
        this.configured = configured;
    }

    /**
     * How many instances share each limit: as configured, or as last counted (at least this one), and
     * while an outage is settled no fewer than were counted when it began.
     */
    int instances() {
        return (configured > 0) ? configured : Math.max(counted, held);
    }

    /**
     * Holds the count where it is until {@link #release()}: after an outage longer than the others'
     * heartbeats live, the first heartbeat back finds them expired though they are still there, and
     * a smaller count would make this instance's share larger just when theirs are not charged yet.
     */
    void hold() {
        held = counted;
    }

    /** Counts the instances alive again, as their heartbeats say. */
    void release() {
        held = 0;
    }

    /** The instances last counted in Redis, at least this one. */
    int counted() {
        return counted;
    }

    /** Whether the number of instances is configured rather than counted. */
    boolean isConfigured() {
        return configured > 0;
    }

    String key() {
        return key;
    }

    /** What to do when a heartbeat finds other instances silent: keep within the shares until they have charged. */
    void whenOthersSilent(Runnable action) {
        this.whenOthersSilent = action;
    }

    /**
     * Whether this instance may not know that another one is silent: its own heartbeats have not been
     * answered for longer than {@link #SILENT_HEARTBEATS} intervals (dropped connections, a slow Redis),
     * so one that went silent meanwhile may already be admitting its shares ({@link #foundSilent()}).
     * Until a heartbeat is answered again, this instance keeps within its shares too. False before the
     * first heartbeat, and when this instance is alone.
     */
    boolean uninformed() {
        long sent = lastBeatSentNanos;
        return sent != NEVER && instances() > 1 && nanoTime.getAsLong() - sent > interval.toNanos() * SILENT_HEARTBEATS;
    }

    /**
     * Sends one heartbeat now; true to keep beating. Failures are quiet: the last count stands.
     *
     * @param clean whether this instance owes Redis nothing now
     */
    boolean beat(boolean clean) {
        if (leaving) {
            return false;
        }
        try {
            send(clean, "");
        }
        catch (RuntimeException ex) {
            logger.debug("Rate limiter instance heartbeat failed; the last count (" + counted + ") stands", ex);
        }
        return !leaving;
    }

    /**
     * Says in a heartbeat whether this instance owes Redis nothing, and asks how many other instances
     * alive have not said so since heartbeat {@code since}; failures propagate.
     *
     * @param clean whether this instance owes Redis nothing now
     * @param since the number of a heartbeat ({@link Settling#beat()}), or null to ask nothing
     * @return this heartbeat's number, and the other instances alive not clean since {@code since}
     */
    Settling othersOwing(boolean clean, @Nullable Long since) {
        List<?> reply = send(clean, (since != null) ? Long.toString(since) : "");
        return new Settling(ScriptCodec.number(reply, 1), (int) ScriptCodec.number(reply, 2));
    }

    /** A heartbeat's word on the others: its number among all instances' heartbeats, and how many alive owed since. */
    record Settling(long beat, int owing) {
    }

    /** Other instances alive that missed {@link #SILENT_HEARTBEATS} heartbeats, as this instance's last heartbeat found. */
    int silent() {
        return silent;
    }

    /**
     * Whether every other instance alive has had the time to find this one silent, its heartbeats
     * failing since the last that was answered: then they keep within their shares, and a permit this
     * one admits without Redis is not taken from Redis by them as well. True when this instance never
     * beat (the others never counted it) or it is alone.
     */
    boolean foundSilent() {
        long last = lastBeatNanos;
        if (last == NEVER || instances() <= 1) {
            return true;
        }
        // Silent once SILENT_HEARTBEATS are missed, counted by Redis from the last heartbeat it ran (no later than
        // its answer here); found at the others' next heartbeat, one interval late at most, plus one for a late
        // beat. One whose own heartbeats fail meanwhile keeps within its shares as if it had found it (uninformed).
        return nanoTime.getAsLong() - last >= interval.toNanos() * (SILENT_HEARTBEATS + 2);
    }

    private List<?> send(boolean clean, String since) {
        long sent = nanoTime.getAsLong();
        List<?> reply = redis.execute(HEARTBEAT, List.of(key, cleanKey, beatsKey, seenKey), id, Long.toString(ttlMicros()), now(),
                clean ? "1" : "0", since, Long.toString(interval.toNanos() / 1_000 * SILENT_HEARTBEATS));
        if (reply == null || reply.size() < 4) {
            throw new IllegalStateException("The instances script answered " + reply);
        }
        counted = (int) Math.max(1, Math.min(Integer.MAX_VALUE, ScriptCodec.number(reply, 0)));
        silent = (int) ScriptCodec.number(reply, 3);
        if (silent > 0) {
            // Before this beat counts as news: no decision may read it as "none silent" in between.
            whenOthersSilent.run();
        }
        lastBeatNanos = nanoTime.getAsLong();
        lastBeatSentNanos = sent;
        return reply;
    }

    /** Removes this instance from the count at once (shutdown); failures are ignored. */
    void leave() {
        leaving = true;
        try {
            redis.execute(HEARTBEAT, List.of(key, cleanKey, beatsKey, seenKey), id, "0", now(), "0", "", "");
        }
        catch (RuntimeException ex) {
            logger.debug("Could not remove this instance from the rate limiters' count; it expires", ex);
        }
    }

    Duration interval() {
        return interval;
    }

    /** How long an instance counts as alive after its heartbeat: three intervals, and at least {@link #LEAST_ALIVE}. */
    Duration alive() {
        Duration missed = interval.multipliedBy(MISSED_HEARTBEATS);
        return (missed.compareTo(LEAST_ALIVE) > 0) ? missed : LEAST_ALIVE;
    }

    private long ttlMicros() {
        return alive().toNanos() / 1_000;
    }

    private String now() {
        return (clock != null) ? Long.toString(clock.nowMicros()) : "";
    }
}
