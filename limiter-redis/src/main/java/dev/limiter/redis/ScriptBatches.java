package dev.limiter.redis;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

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
final class ScriptBatches extends Batches<ScriptBatches.Lane> {

    private final BlockingScripts scripts;

    /**
     * @param maxSize most decisions sent in one call
     */
    ScriptBatches(BlockingScripts scripts, int maxSize) {
        super(maxSize);
        this.scripts = scripts;
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

    /** Asks Redis with the first decision, blocking, as that decision's caller is anyway. */
    @Override
    Boolean learnKind() {
        return scripts.isCluster();
    }

    @Override
    Lane newLane() {
        return new Lane();
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
    final class Lane {

        private final ConcurrentLinkedQueue<Call> queue = new ConcurrentLinkedQueue<>();

        private final AtomicInteger sending = new AtomicInteger();

        List<?> decide(Call call) {
            queue.add(call);
            decisions.increment();
            boolean interrupted = false;
            try {
                while (!call.done) {
                    if (takePlace(sending)) {
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
            List<Call> batch = take(queue);
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
                    fail(batch, queue, ex);
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
                fail(batch, queue, ex);
                return;
            }
            place.release();
            answer(batch, replies);
        }

    }

    @Override
    public String toString() {
        return "ScriptBatches[" + scripts + ", at most " + maxSize + " decisions per call]";
    }
}
