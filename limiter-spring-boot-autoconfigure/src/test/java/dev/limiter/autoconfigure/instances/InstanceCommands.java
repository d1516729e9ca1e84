package dev.limiter.autoconfigure.instances;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.instances.InstanceApp.DecisionCounter;
import dev.limiter.autoconfigure.instances.InstanceApp.LimitedCall;

/**
 * The commands an {@link InstanceApp} reads, each run by {@value #THREADS} callers started together (so
 * three instances are 48 concurrent callers) and answered by one {@link InstanceResult} line:
 * <ul>
 * <li>{@code round <limiter> <key> <calls>}: the callers share {@code calls} calls on one key;</li>
 * <li>{@code warmup <millis> <pauseMillis>}: each caller calls every limiter in turn, on throwaway keys of
 * this instance, for that long, pausing between its calls, so that the JIT compiles the allowed and the
 * rejected paths;</li>
 * <li>{@code flood <limiter> <key> <millis> <pauseMillis>}: the callers call one key for that long,
 * each pausing between its calls (to leave the machine's cores to Redis and the other instances);</li>
 * <li>{@code soak <file> <millis> <pauseMillis> <hotPercent> <keys> <limiter>,<limiter>,... [<callers>]}: for
 * that long each caller (all {@value #THREADS}, or the first {@code callers} of them) calls a limiter chosen at random on the key {@code hot} ({@code hotPercent} % of its calls) or
 * on one of {@code k0 … k<keys−1>}, pausing between its calls, and writes to {@code file} one
 * {@link Admission} line per admitted call, then {@code R <limiter> <key> <count>} per key with rejections
 * and {@code E <limiter> <key> <before> <after> <exception>} per failed call.</li>
 * </ul>
 * A call counts as admitted when the method ran, rejected on {@link RateLimitExceededException}, and as
 * an error on any other exception. A limiter is one of {@link InstanceApp}'s annotated methods or else,
 * by name, any limiter of the registry (one defined only under {@code limiter.limiters}), called with
 * {@link RateLimiter#tryAcquire(String)} and rejected as the annotation would.
 */
final class InstanceCommands implements AutoCloseable {

    /** Concurrent callers per instance. */
    static final int THREADS = 16;

    /** Longest a round or warm-up may take before the instance gives up on it; floods get their length on top. */
    private static final long BOUND_MILLIS = TimeUnit.SECONDS.toMillis(120);

    /**
     * Calls of one limiter each caller makes on one throwaway key during a warm-up. The callers of an
     * instance share their keys, so each key sees 16 times as many calls: with a limit of 50, some
     * admitted and more rejected, whatever the pace.
     */
    private static final int WARMUP_CALLS_PER_KEY = 10;

    private final Map<String, LimitedCall> calls;

    private final RateLimiterRegistry registry;

    private final DecisionCounter decisions;

    private final ExecutorService callers;

    InstanceCommands(Map<String, LimitedCall> calls, RateLimiterRegistry registry, DecisionCounter decisions) {
        this.calls = calls;
        this.registry = registry;
        this.decisions = decisions;
        AtomicInteger number = new AtomicInteger();
        this.callers = Executors.newFixedThreadPool(THREADS, (task) -> {
            Thread thread = new Thread(task, "caller-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Runs one command line and answers with its result line. */
    String run(String line) {
        String[] words = line.split("\\s+");
        String command = String.join(":", words);
        try {
            switch (words[0]) {
                case "round": {
                    LimitedCall call = limiter(words[1]);
                    String key = words[2];
                    AtomicInteger tickets = new AtomicInteger(Integer.parseInt(words[3]));
                    return drive(command, 0, (caller, tally) -> {
                        while (tickets.getAndDecrement() > 0) {
                            tally.call(call, key);
                        }
                    });
                }
                case "warmup": {
                    long millis = Long.parseLong(words[1]);
                    long pauseNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(words[2]));
                    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
                    List<String> names = InstanceApp.LIMITERS;
                    String run = Long.toString(System.nanoTime(), 36);
                    return drive(command, millis, (caller, tally) -> {
                        for (int i = 0; System.nanoTime() - end < 0; i++) {
                            String name = names.get(i % names.size());
                            String key = "warmup-" + ProcessHandle.current().pid() + "-" + run + "-"
                                    + (i / names.size() / WARMUP_CALLS_PER_KEY);
                            tally.call(this.calls.get(name), key);
                            LockSupport.parkNanos(pauseNanos);
                        }
                    });
                }
                case "flood": {
                    LimitedCall call = limiter(words[1]);
                    String key = words[2];
                    long millis = Long.parseLong(words[3]);
                    long pauseNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(words[4]));
                    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
                    return drive(command, millis, (caller, tally) -> {
                        while (System.nanoTime() - end < 0) {
                            tally.call(call, key);
                            LockSupport.parkNanos(pauseNanos);
                        }
                    });
                }
                case "soak":
                    return soak(command, words);
                default:
                    throw new IllegalArgumentException("unknown command");
            }
        }
        catch (Exception ex) {
            return InstanceResult.failure(command, ex);
        }
    }

    private LimitedCall limiter(String name) {
        LimitedCall call = this.calls.get(name);
        if (call != null) {
            return call;
        }
        RateLimiter limiter = this.registry.find(name)
            .orElseThrow(() -> new IllegalArgumentException("no limiter " + name + "; there are " + this.calls.keySet()
                    + " and " + this.registry.names()));
        return (key) -> {
            Decision decision = limiter.tryAcquire(key);
            if (!decision.allowed()) {
                throw new RateLimitExceededException(name, decision);
            }
        };
    }

    private String soak(String command, String[] words) throws Exception {
        Path file = Path.of(words[1]);
        long millis = Long.parseLong(words[2]);
        long pauseNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(words[3]));
        int hotPercent = Integer.parseInt(words[4]);
        int keys = Integer.parseInt(words[5]);
        List<String> names = List.of(words[6].split(","));
        int callers = (words.length > 7) ? Integer.parseInt(words[7]) : THREADS;
        if (callers < 1 || callers > THREADS) {
            throw new IllegalArgumentException("between 1 and " + THREADS + " callers, not " + callers);
        }
        List<LimitedCall> limited = names.stream().map(this::limiter).toList();
        List<List<String>> lines = new ArrayList<>();
        for (int t = 0; t < callers; t++) {
            lines.add(new ArrayList<>());
        }
        Map<String, LongAdder> rejections = new ConcurrentHashMap<>();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        String result = drive(command, millis, callers, (caller, tally) -> {
            List<String> mine = lines.get(caller);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() - end < 0) {
                int limiter = random.nextInt(names.size());
                String key = (random.nextInt(100) < hotPercent) ? "hot" : "k" + random.nextInt(keys);
                this.decisions.takeLast();
                long before = epochMicros();
                Seen seen = tally.call(limited.get(limiter), key);
                long after = epochMicros();
                DecisionSource source = this.decisions.takeLast();
                if (seen == Seen.ADMITTED) {
                    mine.add(new Admission(names.get(limiter), key, before, after, (source != null) ? source.name() : "?").line());
                }
                else if (seen == Seen.REJECTED) {
                    rejections.computeIfAbsent(names.get(limiter) + " " + key, (k) -> new LongAdder()).increment();
                }
                else {
                    mine.add("E " + names.get(limiter) + " " + key + " " + before + " " + after + " " + tally.lastError.get());
                }
                LockSupport.parkNanos(pauseNanos);
            }
        });
        List<String> all = new ArrayList<>();
        lines.forEach(all::addAll);
        rejections.forEach((limiterAndKey, count) -> all.add("R " + limiterAndKey + " " + count.sum()));
        Files.write(file, all, StandardCharsets.UTF_8);
        return result;
    }

    /**
     * Now, in microseconds since the epoch, rounded down: the clock Redis' {@code TIME} reads, rounded the
     * same way, so a decision Redis times between two readings lies between them.
     */
    static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /** Runs {@code work} on every caller at once and sums up what they saw. */
    private String drive(String command, long extraMillis, Work work) throws Exception {
        return drive(command, extraMillis, THREADS, work);
    }

    /** Runs {@code work} on the first {@code callers} callers at once and sums up what they saw. */
    private String drive(String command, long extraMillis, int callers, Work work) throws Exception {
        Map<DecisionSource, Long> before = this.decisions.snapshot();
        Tally tally = new Tally();
        CountDownLatch ready = new CountDownLatch(callers);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < callers; t++) {
            int caller = t;
            futures.add(this.callers.submit(() -> {
                ready.countDown();
                go.await();
                work.run(caller, tally);
                return null;
            }));
        }
        if (!ready.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the callers did not start within 30 s");
        }
        long start = System.currentTimeMillis();
        go.countDown();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(extraMillis + BOUND_MILLIS);
        for (Future<?> future : futures) {
            future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        long end = System.currentTimeMillis();
        Map<DecisionSource, Long> sources = new EnumMap<>(DecisionSource.class);
        this.decisions.snapshot().forEach((source, count) -> {
            long delta = count - before.getOrDefault(source, 0L);
            if (delta != 0) {
                sources.put(source, delta);
            }
        });
        return InstanceResult.format(command, tally.admitted.sum(), tally.rejected.sum(), tally.errors.sum(),
                TimeUnit.NANOSECONDS.toMillis(tally.slowestNanos.get()), start, end, sources, tally.firstError.get());
    }

    @Override
    public void close() {
        this.callers.shutdownNow();
    }

    /** What one caller does during a command. */
    @FunctionalInterface
    private interface Work {

        void run(int caller, Tally tally) throws Exception;

    }

    /** What one call came to. */
    private enum Seen {
        ADMITTED, REJECTED, ERROR
    }

    /** What the callers of one command saw, summed up. */
    private static final class Tally {

        final LongAdder admitted = new LongAdder();

        final LongAdder rejected = new LongAdder();

        final LongAdder errors = new LongAdder();

        final AtomicLong slowestNanos = new AtomicLong();

        final AtomicReference<String> firstError = new AtomicReference<>();

        final ThreadLocal<String> lastError = new ThreadLocal<>();

        Seen call(LimitedCall call, String key) {
            long start = System.nanoTime();
            Seen seen;
            try {
                call.call(key);
                this.admitted.increment();
                seen = Seen.ADMITTED;
            }
            catch (RateLimitExceededException ex) {
                this.rejected.increment();
                seen = Seen.REJECTED;
            }
            catch (RuntimeException | Error ex) {
                this.errors.increment();
                this.firstError.compareAndSet(null, ex.toString());
                this.lastError.set(ex.toString().replaceAll("\\s+", " "));
                seen = Seen.ERROR;
            }
            this.slowestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
            return seen;
        }

    }

}
