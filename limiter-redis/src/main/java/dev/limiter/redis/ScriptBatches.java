package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Blocking decisions that meet in flight, sent as one call of the batch script ({@code batch.lua})
 * that decides them one after the other: while {@link #IN_FLIGHT} calls are on their way to Redis,
 * further decisions queue, and the next caller to find a call free sends every decision queued
 * (at most {@code maxSize}) as one. No timer and no waiting for company: a decision that finds a
 * call free goes out at once, alone, by its algorithm's own script, as without batching. Each caller
 * gets its own reply, as its script would have given it alone at that place in the queue.
 * <p>
 * A failed call fails every decision it carried, each going to its caller's failure policy as an
 * unbatched failure does. A call that timed out or lost its connection also fails the decisions
 * queued behind it: they would have shared the connection that failed, and sending them after a
 * timeout would hold their callers for twice the timeout. On a Redis Cluster, where the keys of one script must share a slot,
 * decisions queue by slot, and only decisions of one slot go out together.
 */
final class ScriptBatches {

    /** Script calls on their way to Redis at once, per queue: two, so Redis has the next batch while the last one's callers wake. */
    static final int IN_FLIGHT = 2;

    private final BlockingScripts scripts;

    private final int maxSize;

    /** The one queue of a standalone (or Sentinel) Redis. */
    private final Lane lane = new Lane();

    /** Queues by slot, on a Redis Cluster. */
    private final ConcurrentHashMap<Integer, Lane> bySlot = new ConcurrentHashMap<>();

    /** Whether Redis is a cluster; null until known (asked with the first decision). */
    private volatile @Nullable Boolean cluster;

    /** Decisions queued, batched or not; for tests. */
    private final LongAdder decisions = new LongAdder();

    /** Script calls sent, batched or alone; for tests. */
    private final LongAdder calls = new LongAdder();

    /** Decisions sent in calls of several decisions; for tests. */
    private final LongAdder batched = new LongAdder();

    /**
     * @param maxSize most decisions sent in one call
     */
    ScriptBatches(BlockingScripts scripts, int maxSize) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("a batch must hold at least 1 decision but maxSize was " + maxSize);
        }
        this.scripts = scripts;
        this.maxSize = maxSize;
    }

    /**
     * Runs {@code script}, a decision script of {@code codec}'s configuration, on {@code key} with the
     * arguments of {@link ScriptCodec#arguments}, alone or in a batch; throws what Redis or the
     * connection throws for it. Waits, uninterruptibly, for its reply: a call on its way cannot be
     * withdrawn, and the connection's timeout bounds it.
     */
    List<?> execute(LuaScript script, ScriptCodec codec, String key, @Nullable Long nowMicros, long permits) {
        return lane(key).decide(new Call(script, codec, key, nowMicros, permits));
    }

    private Lane lane(String key) {
        Boolean known = cluster;
        if (known == null) {
            known = scripts.isCluster();
            cluster = known;
        }
        if (!known) {
            return lane;
        }
        return bySlot.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(key), (slot) -> new Lane());
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
     * hears the reply. Shared with {@link ReactiveBatches}, which sends the same batch script.
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

    /** One blocking decision: its caller parks until {@link #complete} wakes it. */
    private static final class Call extends Queued {

        final Thread caller = Thread.currentThread();

        private @Nullable List<?> reply;

        private @Nullable RuntimeException failure;

        /** Set last, after the reply or failure: reading it true makes them visible. */
        private volatile boolean done;

        Call(LuaScript script, ScriptCodec codec, String key, @Nullable Long nowMicros, long permits) {
            super(script, codec, key, nowMicros, permits);
        }

        @Override
        void complete(@Nullable List<?> reply, @Nullable RuntimeException failure) {
            this.reply = reply;
            this.failure = failure;
            this.done = true;
            if (caller != Thread.currentThread()) {
                LockSupport.unpark(caller);
            }
        }

        List<?> result() {
            RuntimeException failed = failure;
            if (failed != null) {
                throw failed;
            }
            List<?> answer = reply;
            if (answer == null) {
                throw new IllegalStateException("No reply for " + key);
            }
            return answer;
        }
    }

    /**
     * Decisions going out over one connection (or, on a cluster, to one slot): at most
     * {@link #IN_FLIGHT} calls at a time, the rest queued. The caller that takes a free place sends;
     * whoever frees a place wakes the oldest queued caller to send next, so that no decision waits in
     * the queue while a place is free and no caller sends for others longer than its own decision takes.
     */
    private final class Lane {

        private final ConcurrentLinkedQueue<Call> queue = new ConcurrentLinkedQueue<>();

        private final AtomicInteger sending = new AtomicInteger();

        List<?> decide(Call call) {
            queue.add(call);
            decisions.increment();
            boolean interrupted = false;
            try {
                while (!call.done) {
                    if (takePlace()) {
                        Place place = new Place();
                        try {
                            sendQueued(place);
                        }
                        finally {
                            place.release();
                        }
                    }
                    else {
                        LockSupport.park(this);
                        interrupted |= Thread.interrupted();
                    }
                }
            }
            finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return call.result();
        }

        private boolean takePlace() {
            for (int now = sending.get(); now < IN_FLIGHT; now = sending.get()) {
                if (sending.compareAndSet(now, now + 1)) {
                    return true;
                }
            }
            return false;
        }

        /** Wakes the caller of the oldest queued decision, which then sends it (and those behind it) if a place is free. */
        private void wakeNext() {
            Call next = queue.peek();
            if (next != null && next.caller != Thread.currentThread()) {
                LockSupport.unpark(next.caller);
            }
        }

        /** A place in flight taken by this thread, given back once, as soon as Redis has answered. */
        private final class Place {

            private boolean released;

            void release() {
                if (!released) {
                    released = true;
                    sending.decrementAndGet();
                    wakeNext();
                }
            }
        }

        /** Sends the queued decisions, at most maxSize, as one call. */
        private void sendQueued(Place place) {
            List<Call> batch = new ArrayList<>(Math.min(maxSize, 16));
            for (Call next; batch.size() < maxSize && (next = queue.poll()) != null;) {
                batch.add(next);
            }
            if (batch.isEmpty()) {
                return;
            }
            try {
                send(batch, place);
            }
            finally {
                // Whatever went wrong here, no caller of this batch may wait for ever.
                for (Call call : batch) {
                    if (!call.done) {
                        call.complete(null, new IllegalStateException("The batch of " + call.key + " ended without its reply"));
                    }
                }
            }
        }

        /**
         * Sends {@code batch}; gives its place back as soon as the reply is in, before waking its callers,
         * so that the next batch need not wait for them (on a busy machine, waking 60 threads takes a while).
         */
        private void send(List<Call> batch, Place place) {
            calls.increment();
            if (batch.size() == 1) {
                Call alone = batch.get(0);
                List<?> reply;
                try {
                    // Alone: its own script, exactly as without batching.
                    reply = scripts.execute(alone.script, alone.key, alone.codec, alone.nowMicros, alone.permits);
                }
                catch (RuntimeException ex) {
                    fail(batch, ex);
                    return;
                }
                place.release();
                alone.complete(reply, null);
                return;
            }
            batched.add(batch.size());
            List<?> replies;
            try {
                replies = scripts.execute(LuaScript.batch(), batch.size(), keysAndArgs(batch));
            }
            catch (RuntimeException ex) {
                fail(batch, ex);
                return;
            }
            place.release();
            answer(batch, replies);
        }

        /**
         * Fails {@code batch} with {@code failure}; and, when the connection failed (a timeout, a lost
         * connection), the decisions queued behind it, which would wait on the same connection.
         */
        private void fail(List<Call> batch, RuntimeException failure) {
            for (Call call : batch) {
                call.complete(null, failure);
            }
            if (!ofConnection(failure)) {
                return;
            }
            for (Call queued; (queued = queue.poll()) != null;) {
                queued.complete(null, failure);
            }
        }
    }

    /**
     * The keys and arguments of the batch script for {@code batch}, as {@code batch.lua} takes them:
     * the keys; the configurations, each once with the arguments all its decisions share, already
     * encoded; then each decision's configuration, time and permits. Mostly one configuration, so a
     * decision adds 4 values to the call instead of its script's 8 or more.
     */
    static byte[][] keysAndArgs(List<? extends Queued> batch) {
        List<Queued> configurations = new ArrayList<>(4);
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
                size += 2 + call.codec.fixedArguments().length;
            }
            configurationOf[i] = ScriptCodec.numberBytes(index + 1);
        }
        byte[][] keysAndArgs = new byte[size][];
        int at = 0;
        for (Queued call : batch) {
            keysAndArgs[at++] = call.key.getBytes(StandardCharsets.UTF_8);
        }
        keysAndArgs[at++] = ScriptCodec.numberBytes(configurations.size());
        for (Queued configuration : configurations) {
            byte[][] fixed = configuration.codec.fixedArguments();
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

    @Override
    public String toString() {
        return "ScriptBatches[" + scripts + ", at most " + maxSize + " decisions per call]";
    }
}
