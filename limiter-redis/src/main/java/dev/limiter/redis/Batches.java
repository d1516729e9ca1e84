package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * What blocking ({@link ScriptBatches}) and reactive ({@link ReactiveBatches}) batching share: the
 * lanes decisions queue in, at most {@link #IN_FLIGHT} calls of each on their way to Redis (one lane
 * on a standalone or Sentinel Redis; one per hash slot on a cluster, where the keys of one script must
 * share a slot), the batch script's arguments and replies, and the counts tests read.
 *
 * @param <L> a lane
 */
abstract class Batches<L> {

    /** Script calls on their way to Redis at once, per lane: two, so Redis has the next batch while the last one's callers wake. */
    static final int IN_FLIGHT = 2;

    /** Where the one lane of a standalone Redis is kept among the lanes by slot (0 to 16383). */
    private static final Integer STANDALONE = -1;

    final int maxSize;

    private final ConcurrentHashMap<Integer, L> lanes = new ConcurrentHashMap<>();

    /** Decisions queued, batched or not; for tests. */
    final LongAdder decisions = new LongAdder();

    /** Script calls sent, batched or alone; for tests. */
    final LongAdder calls = new LongAdder();

    /** Decisions sent in calls of several decisions; for tests. */
    final LongAdder batched = new LongAdder();

    /**
     * @param maxSize most decisions sent in one call
     */
    Batches(int maxSize) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("a batch must hold at least 1 decision but maxSize was " + maxSize);
        }
        this.maxSize = maxSize;
    }

    /** Whether Redis is a cluster; null until known. */
    private volatile @Nullable Boolean cluster;

    /**
     * Finds out whether Redis is a cluster, called while that is not known: returns the answer, or
     * null while it is not in yet, and {@link #known} takes an answer that comes later.
     */
    abstract @Nullable Boolean learnKind();

    /** Takes whether Redis is a cluster, however learnt. */
    final void known(boolean isCluster) {
        cluster = isCluster;
    }

    /** Whether Redis is a cluster; null while that is not known, and decisions queue by slot, which is right on any Redis. */
    final @Nullable Boolean cluster() {
        Boolean known = cluster;
        if (known == null) {
            known = learnKind();
            if (known != null) {
                cluster = known;
            }
        }
        return known;
    }

    /** A new, empty lane. */
    abstract L newLane();

    /** The lane a decision on {@code key} queues in. */
    final L lane(String key) {
        Integer at = Boolean.FALSE.equals(cluster()) ? STANDALONE : Integer.valueOf(ClusterSlotHashUtil.calculateSlot(key));
        L lane = lanes.get(at);
        return (lane != null) ? lane : lanes.computeIfAbsent(at, (slot) -> newLane());
    }

    /** Takes one of a lane's {@link #IN_FLIGHT} places, counted by {@code sending}; false when all are taken. */
    static boolean takePlace(AtomicInteger sending) {
        for (int now = sending.get(); now < IN_FLIGHT; now = sending.get()) {
            if (sending.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** The decisions to send next, oldest first: at most {@link #maxSize} taken from {@code queue}; empty when none is queued. */
    final <Q> List<Q> take(Queue<Q> queue) {
        List<Q> batch = new ArrayList<>(Math.min(maxSize, 16));
        for (Q next; batch.size() < maxSize && (next = queue.poll()) != null;) {
            batch.add(next);
        }
        return batch;
    }

    /**
     * Fails every decision of {@code batch} with {@code failure}; and, when the connection failed (a
     * timeout, a lost connection), those in {@code queue} too, which would wait on the same connection.
     */
    static <Q extends Queued> void fail(List<Q> batch, Queue<Q> queue, RuntimeException failure) {
        for (Q call : batch) {
            call.complete(null, failure);
        }
        if (!ofConnection(failure)) {
            return;
        }
        for (Q queued; (queued = queue.poll()) != null;) {
            queued.complete(null, failure);
        }
    }

    /** Script calls sent so far, each batch counted once. */
    long calls() {
        return calls.sum();
    }

    /** Decisions sent so far in calls of more than one. */
    long batchedDecisions() {
        return batched.sum();
    }

    /** Decisions queued so far, each counted once, whether it was sent alone or in a batch. */
    long decisions() {
        return decisions.sum();
    }

    /** Most decisions sent in one call. */
    int maxSize() {
        return maxSize;
    }

    /**
     * One decision queued for a batch, blocking or not: what its script needs, and how its caller
     * hears the reply.
     */
    abstract static class Queued {

        final LuaScript script;

        final ScriptCodec codec;

        final String key;

        final @Nullable Long nowMicros;

        final long permits;

        Queued(LuaScript script, ScriptCodec codec, String key, @Nullable Long nowMicros, long permits) {
            this.script = script;
            this.codec = codec;
            this.key = key;
            this.nowMicros = nowMicros;
            this.permits = permits;
        }

        /** Whether this decision runs the same script with the same fixed arguments as {@code other}'s. */
        boolean sameConfiguration(Queued other) {
            return codec == other.codec && script == other.script;
        }

        /** Hands the caller its reply, or its failure; called once. */
        abstract void complete(@Nullable List<?> reply, @Nullable RuntimeException failure);
    }

    /**
     * The keys and arguments of the batch script for {@code batch}, as {@code batch.lua} takes them:
     * the keys; the configurations, each once with the arguments all its decisions share, already
     * encoded; then each decision's configuration, time and permits. Mostly one configuration, so a
     * decision adds 4 values to the call instead of its script's 8 or more.
     */
    static byte[][] keysAndArgs(List<? extends Queued> batch) {
        List<Queued> configurations = new ArrayList<>(4);
        // Taken once per configuration: a calendar window's boundaries may be recomputed meanwhile.
        List<byte[][]> fixedOf = new ArrayList<>(4);
        byte[][] configurationOf = new byte[batch.size()][];
        int size = 1 + 4 * batch.size();
        for (int i = 0; i < batch.size(); i++) {
            Queued call = batch.get(i);
            int index = 0;
            while (index < configurations.size() && !configurations.get(index).sameConfiguration(call)) {
                index++;
            }
            if (index == configurations.size()) {
                configurations.add(call);
                fixedOf.add(call.codec.fixedArguments(call.nowMicros));
                size += 2 + fixedOf.get(index).length;
            }
            configurationOf[i] = ScriptCodec.numberBytes(index + 1);
        }
        byte[][] keysAndArgs = new byte[size][];
        int at = 0;
        for (Queued call : batch) {
            keysAndArgs[at++] = call.key.getBytes(StandardCharsets.UTF_8);
        }
        keysAndArgs[at++] = ScriptCodec.numberBytes(configurations.size());
        for (int c = 0; c < configurations.size(); c++) {
            Queued configuration = configurations.get(c);
            byte[][] fixed = fixedOf.get(c);
            keysAndArgs[at++] = ScriptCodec.numberBytes(configuration.script.batchIndex());
            keysAndArgs[at++] = ScriptCodec.numberBytes(configuration.codec.argumentCount());
            System.arraycopy(fixed, 0, keysAndArgs, at, fixed.length);
            at += fixed.length;
        }
        for (int i = 0; i < batch.size(); i++) {
            Queued call = batch.get(i);
            keysAndArgs[at++] = configurationOf[i];
            keysAndArgs[at++] = ScriptCodec.timeBytes(call.nowMicros);
            keysAndArgs[at++] = ScriptCodec.numberBytes(call.permits);
        }
        return keysAndArgs;
    }

    /**
     * Hands each decision of {@code batch} its part of the batch script's {@code replies}: its 8
     * numbers, or, where Redis raised an error for that decision alone (as its script alone would
     * have), a failure of that caller alone.
     */
    static void answer(List<? extends Queued> batch, @Nullable List<?> replies) {
        for (int i = 0; i < batch.size(); i++) {
            Queued call = batch.get(i);
            if (replies == null || replies.size() < 8 * (i + 1)) {
                call.complete(null, new RedisSystemException("The batch script replied " + ((replies == null) ? "nothing"
                        : replies.size() + " values") + " for " + batch.size() + " decisions", null));
                continue;
            }
            List<?> reply = replies.subList(8 * i, 8 * i + 8);
            Object first = reply.get(0);
            if (first instanceof Number) {
                call.complete(reply, null);
            }
            else {
                String message = (first instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(first);
                call.complete(null, new RedisSystemException("Redis failed a batched decision on " + call.key + ": " + message, null));
            }
        }
    }

    /** Whether {@code failure} is of the connection (a timeout, a lost connection), not an error Redis answered for one call. */
    static boolean ofConnection(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof QueryTimeoutException || cause.getClass().getName().endsWith("CommandTimeoutException")) {
                return true;
            }
        }
        return RedisAvailability.outageEvidence(failure) != null;
    }
}
