package dev.limiter.redis;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Asynchronous decisions that meet in flight, sent as one call of the batch script, as
 * {@link ScriptBatches} sends blocking ones: while {@link #IN_FLIGHT} calls are on their
 * way to Redis, further decisions queue, and whoever frees a place (the thread that reads a reply)
 * sends every decision queued, at most {@code maxSize}, as one call. No thread waits for anything: a
 * decision that finds a call free goes out at once, alone, by its algorithm's own script.
 * <p>
 * Each caller's future gets its own reply, as its script would have given it alone at that place in
 * the queue. A failed call fails every decision it carried; one that timed out or lost its
 * connection also fails the decisions queued behind it, which would have shared that connection. On
 * a Redis Cluster decisions queue by slot. Until this knows whether Redis is a cluster (it asks with
 * the first decision, without waiting, or is told at start-up), decisions queue by slot, which is
 * right on any Redis.
 */
final class ReactiveBatches extends Batches<ReactiveBatches.Lane> {

    private final ReactiveScripts scripts;

    /** Whether a decision has asked Redis what kind it is. */
    private final AtomicBoolean asked = new AtomicBoolean();

    /**
     * @param maxSize most decisions sent in one call
     */
    ReactiveBatches(ReactiveScripts scripts, int maxSize) {
        super(maxSize);
        this.scripts = scripts;
    }

    /**
     * Runs {@code script}, a decision script of {@code codec}'s configuration, on {@code key}, alone or
     * in a batch. The future fails with what Redis or the connection failed it with; it completes on
     * the thread that reads Redis' reply.
     */
    CompletableFuture<List<?>> execute(LuaScript script, ScriptCodec codec, String key, @Nullable Long nowMicros, long permits) {
        Pending call = new Pending(script, codec, key, nowMicros, permits);
        lane(key).add(call);
        return call.reply;
    }

    @Override
    Lane newLane() {
        return new Lane();
    }

    /**
     * Asks Redis, once and without waiting, whether it is a cluster, and answers null meanwhile; asks
     * again with a later decision if that fails.
     */
    @Override
    @Nullable Boolean learnKind() {
        if (!asked.compareAndSet(false, true)) {
            return null;
        }
        CompletableFuture<Boolean> kind;
        try {
            kind = scripts.isCluster();
        }
        catch (RuntimeException ex) {
            asked.set(false);
            return null;
        }
        kind.whenComplete((isCluster, failure) -> {
            if (failure == null && isCluster != null) {
                known(isCluster);
            }
            else {
                asked.set(false);
            }
        });
        return null;
    }

    /** One asynchronous decision: its future completes with its reply. */
    private static final class Pending extends Queued {

        final CompletableFuture<List<?>> reply = new CompletableFuture<>();

        Pending(LuaScript script, ScriptCodec codec, String key, @Nullable Long nowMicros, long permits) {
            super(script, codec, key, nowMicros, permits);
        }

        @Override
        void complete(@Nullable List<?> answer, @Nullable RuntimeException failure) {
            if (failure != null) {
                reply.completeExceptionally(failure);
            }
            else {
                reply.complete(answer);
            }
        }
    }

    /**
     * Decisions going out over one connection (or, on a cluster, to one slot): at most
     * {@link #IN_FLIGHT} calls at a time, the rest queued. Whoever queues a decision or
     * frees a place sends what is queued while a place is free, so no decision waits in the queue
     * while a place is free.
     */
    final class Lane {

        private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();

        private final AtomicInteger sending = new AtomicInteger();

        void add(Pending call) {
            queue.add(call);
            decisions.increment();
            sendQueued();
        }

        /** Sends the queued decisions, at most maxSize a call, while a place is free. */
        private void sendQueued() {
            while (!queue.isEmpty() && takePlace(sending)) {
                List<Pending> batch = take(queue);
                if (batch.isEmpty()) {
                    // Another thread took them: give the place back, and look again.
                    sending.decrementAndGet();
                    continue;
                }
                send(batch);
            }
        }

        private void send(List<Pending> batch) {
            calls.increment();
            CompletableFuture<List<?>> reply;
            try {
                if (batch.size() == 1) {
                    // Alone: its own script, exactly as without batching.
                    Pending alone = batch.get(0);
                    reply = scripts.execute(alone.script, alone.key, Arrays.asList(alone.codec.arguments(alone.nowMicros, alone.permits)));
                }
                else {
                    batched.add(batch.size());
                    reply = scripts.execute(LuaScript.batch(), batch.size(), keysAndArgs(batch));
                }
            }
            catch (RuntimeException ex) {
                reply = CompletableFuture.failedFuture(ex);
            }
            reply.whenComplete((answer, failure) -> answered(batch, answer, failure));
        }

        /**
         * Gives the place back and sends what queued meanwhile before handing this batch's callers their
         * replies, so that Redis has the next batch while they go on.
         */
        private void answered(List<Pending> batch, @Nullable List<?> answer, @Nullable Throwable failure) {
            sending.decrementAndGet();
            try {
                if (failure == null) {
                    sendQueued();
                    if (batch.size() == 1) {
                        batch.get(0).complete(answer, null);
                    }
                    else {
                        answer(batch, answer);
                    }
                    return;
                }
                fail(batch, queue, RedisRateLimiter.runtime(failure));
                sendQueued();
            }
            finally {
                // Whatever went wrong here, no caller of this batch may wait for ever.
                for (Pending call : batch) {
                    if (!call.reply.isDone()) {
                        call.complete(null, new IllegalStateException("The batch of " + call.key + " ended without its reply"));
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ReactiveBatches[" + scripts + ", at most " + maxSize + " decisions per call]";
    }
}
