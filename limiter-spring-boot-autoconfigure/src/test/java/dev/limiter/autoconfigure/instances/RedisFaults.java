package dev.limiter.autoconfigure.instances;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.limiter.test.RedisControl;
import dev.limiter.test.TestRedis;

/**
 * The faults of issue 23, done to a private, persistent {@link TestRedis} in turn while instances call it:
 * between any two of the others its clients' connections are dropped every 250-500 ms
 * ({@code CLIENT KILL TYPE normal}); then it is paused (SIGSTOP, 1-2 s, SIGCONT), killed and restarted
 * with its data, made to refuse authentication for 2 s ({@code requirepass} and every client dropped),
 * or filled ({@code maxmemory} just above the memory it uses, {@code noeviction}, for 2 s). Every fault
 * is undone before the next starts and when the loop ends, however it ends. Commands go through a
 * {@link RedisControl} of the test's own, which {@code CLIENT KILL} skips.
 */
final class RedisFaults {

    /** How long connections are dropped between two other faults. */
    static final Duration DROPPING = Duration.ofMillis(2_500);

    private final TestRedis redis;

    private final RedisControl control;

    private final Random random;

    private final List<String> log = new ArrayList<>();

    private long drops;

    /** When each CLIENT KILL was sent, in epoch microseconds, to explain a key that went over. */
    private final List<Long> dropsAt = new ArrayList<>();

    private long clientsDropped;

    private long oomErrors;

    private boolean paused;

    private boolean killed;

    RedisFaults(TestRedis redis, long seed) {
        this.redis = redis;
        this.control = new RedisControl(redis.host(), redis.port());
        this.random = new Random(seed);
    }

    /**
     * Runs the faults in turn until {@code length} has passed (a fault under way is finished), and leaves
     * Redis healthy.
     */
    void run(Duration length) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + length.toNanos();
        List<Fault> faults = List.of(this::pause, this::restart, this::refuseAuthentication, this::fillMemory);
        try {
            for (int i = 0; i < 100 && System.nanoTime() - deadline < 0; i++) {
                dropConnections(Math.min(DROPPING.toNanos(), deadline - System.nanoTime()));
                if (System.nanoTime() - deadline < 0) {
                    note(start, faults.get(i % faults.size()).run());
                }
            }
        }
        finally {
            heal();
        }
    }

    /** What was done, one line per fault, and the totals. */
    String summary() {
        return "connections dropped " + this.clientsDropped + " times by " + this.drops + " CLIENT KILL; OOM errors "
                + this.oomErrors + "; faults: " + String.join(", ", this.log);
    }

    /** When each CLIENT KILL was sent, in epoch microseconds. */
    List<Long> dropsAt() {
        return this.dropsAt;
    }

    private void dropConnections(long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            this.dropsAt.add(InstanceCommands.epochMicros());
            this.clientsDropped += (Long) this.control.ok("CLIENT", "KILL", "TYPE", "normal");
            this.drops++;
            Thread.sleep(250 + this.random.nextInt(251));
        }
    }

    private String pause() throws InterruptedException {
        long millis = 1_000 + this.random.nextInt(1_001);
        this.redis.pause();
        this.paused = true;
        Thread.sleep(millis);
        this.redis.resume();
        this.paused = false;
        return "paused " + millis + " ms";
    }

    private String restart() throws InterruptedException {
        long millis = 300 + this.random.nextInt(701);
        this.redis.kill();
        this.killed = true;
        this.control.disconnect();
        Thread.sleep(millis);
        long restarting = System.nanoTime();
        this.redis.restart();
        this.killed = false;
        return "killed, down " + millis + " ms, restarted with its data in " + (System.nanoTime() - restarting) / 1_000_000 + " ms";
    }

    private String refuseAuthentication() throws InterruptedException {
        this.control.requirePassword("x");
        try {
            Long dropped = (Long) this.control.ok("CLIENT", "KILL", "TYPE", "normal");
            Thread.sleep(2_000);
            return "refused authentication 2000 ms (" + dropped + " clients dropped)";
        }
        finally {
            this.control.requirePassword("");
        }
    }

    private String fillMemory() throws InterruptedException {
        long oomBefore = oomErrors();
        long used = Long.parseLong(this.control.info("memory", "used_memory"));
        this.control.ok("CONFIG", "SET", "maxmemory-policy", "noeviction");
        this.control.ok("CONFIG", "SET", "maxmemory", Long.toString(used + 1024));
        try {
            Thread.sleep(2_000);
        }
        finally {
            this.control.ok("CONFIG", "SET", "maxmemory", "0");
        }
        long errors = oomErrors() - oomBefore;
        this.oomErrors += errors;
        return "full 2000 ms at " + used + " bytes (" + errors + " OOM errors)";
    }

    /** OOM errors Redis answered since it started, by its error statistics. */
    private long oomErrors() {
        String stat = this.control.info("errorstats", "errorstat_OOM");
        return (stat == null) ? 0 : Long.parseLong(stat.substring(stat.indexOf('=') + 1).split(",")[0]);
    }

    private void heal() {
        if (this.paused) {
            this.redis.resume();
        }
        if (this.killed) {
            this.redis.restart();
            this.control.disconnect();
        }
        this.control.call("CONFIG", "SET", "requirepass", "");
        this.control.call("CONFIG", "SET", "maxmemory", "0");
        this.control.close();
    }

    private void note(long start, String what) {
        this.log.add(String.format("%.1fs %s", (System.nanoTime() - start) / 1e9, what));
    }

    /** One fault, done and undone; answers what it did. */
    @FunctionalInterface
    private interface Fault {

        String run() throws InterruptedException;

    }

}
