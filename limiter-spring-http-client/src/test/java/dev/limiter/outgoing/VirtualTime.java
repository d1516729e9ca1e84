package dev.limiter.outgoing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.limiter.LimiterClock;
import dev.limiter.outgoing.internal.Pause;

import reactor.core.publisher.Mono;

/**
 * Time that moves only when every worker waits on it: a discrete-event clock for many threads. Each
 * worker is active until it sleeps (blocking) or its call waits on a delay (reactive), or it leaves;
 * when none is active, {@link #run} moves the clock to the earliest wake-up and wakes every waiter due
 * then. So a call released at its turn reaches the upstream at exactly that virtual time, whatever the
 * machine's load: Redis and HTTP take real time while the clock stands still.
 */
final class VirtualTime implements LimiterClock, Pause {

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition idle = lock.newCondition();

    private final PriorityQueue<Waiter> waiting = new PriorityQueue<>();

    private long now;

    private long sequence;

    private int active;

    VirtualTime(long startMicros, int workers) {
        this.now = startMicros;
        this.active = workers;
    }

    @Override
    public long nowMicros() {
        lock.lock();
        try {
            return now;
        }
        finally {
            lock.unlock();
        }
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        long micros = duration.toNanos() / 1_000L;
        if (micros <= 0) {
            return;
        }
        Waiter waiter = new Waiter(null);
        lock.lock();
        try {
            enqueue(waiter, micros);
            while (!waiter.woken) {
                waiter.wake.await();
            }
        }
        finally {
            lock.unlock();
        }
    }

    /** A reactive delay in virtual time: the subscription waits, no thread. */
    Mono<?> delay(Duration duration) {
        long micros = duration.toNanos() / 1_000L;
        if (micros <= 0) {
            return Mono.just(0L);
        }
        return Mono.create((sink) -> {
            Waiter waiter = new Waiter(() -> sink.success(0L));
            lock.lock();
            try {
                enqueue(waiter, micros);
            }
            finally {
                lock.unlock();
            }
        });
    }

    /** A worker leaves for good. */
    void leave() {
        lock.lock();
        try {
            active--;
            idle.signalAll();
        }
        finally {
            lock.unlock();
        }
    }

    private void enqueue(Waiter waiter, long micros) {
        waiter.at = now + micros;
        waiter.order = sequence++;
        waiting.add(waiter);
        active--;
        idle.signalAll();
    }

    /** Drives the clock until no worker is left. */
    void run() throws InterruptedException {
        while (true) {
            List<Runnable> wakes = new ArrayList<>();
            lock.lock();
            try {
                while (active > 0) {
                    if (!idle.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException(active + " workers never waited or left");
                    }
                }
                Waiter first = waiting.peek();
                if (first == null) {
                    return;
                }
                now = first.at;
                while (!waiting.isEmpty() && waiting.peek().at <= now) {
                    Waiter due = waiting.poll();
                    active++;
                    due.woken = true;
                    if (due.reactive != null) {
                        wakes.add(due.reactive);
                    }
                    else {
                        due.wake.signal();
                    }
                }
            }
            finally {
                lock.unlock();
            }
            wakes.forEach(Runnable::run);
        }
    }

    private final class Waiter implements Comparable<Waiter> {

        final Condition wake = lock.newCondition();

        final Runnable reactive;

        long at;

        long order;

        boolean woken;

        Waiter(Runnable reactive) {
            this.reactive = reactive;
        }

        @Override
        public int compareTo(Waiter other) {
            return (at != other.at) ? Long.compare(at, other.at) : Long.compare(order, other.order);
        }
    }
}
