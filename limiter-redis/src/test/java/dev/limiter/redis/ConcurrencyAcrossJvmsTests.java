package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.FailurePolicy;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Instances in JVMs of their own share one limit of calls in flight: calls of known length, waiting for
 * their slots, are never more than the limit at once across the JVMs, counted apart from the limiter; and
 * an instance that holds slots while it lives, renewing them across several leases, gives them back
 * within a lease once it is killed. Leases run on Redis TIME, the one clock JVMs share, so these tests
 * wait for real time: calls of 60 ms, a lease of one second.
 */
@RedisTest
@Timeout(120)
class ConcurrencyAcrossJvmsTests {

    static final Duration LEASE = Duration.ofSeconds(1);

    final TestRedis redis = TestRedis.shared();

    final String prefix = TestRedisSupport.uniquePrefix();

    static final int LIMIT = 3;

    @Test
    void callsOfSeveralJvmsAreNeverMoreThanTheLimitInFlight() throws Exception {
        String counter = prefix + ":in-flight";
        int jvms = 3;
        int threads = 4;
        int calls = 5;
        List<Process> callers = new ArrayList<>();
        try {
            for (int i = 0; i < jvms; i++) {
                callers.add(java(ConcurrencyCallerMain.class, redis.host(), Integer.toString(redis.port()), prefix,
                        Integer.toString(LIMIT), Integer.toString(threads), Integer.toString(calls), "60", counter));
            }
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process caller : callers) {
                BufferedReader output = new BufferedReader(new InputStreamReader(caller.getInputStream(), StandardCharsets.UTF_8));
                awaitLine(output, "ready");
                outputs.add(output);
            }
            // All start together, so that the JVMs' calls overlap.
            for (Process caller : callers) {
                caller.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
                caller.getOutputStream().flush();
            }
            long made = 0;
            long max = 0;
            for (BufferedReader output : outputs) {
                String[] done = awaitLine(output, "done ").split(" ");
                made += Long.parseLong(done[1]);
                assertThat(Long.parseLong(done[2])).as("calls rejected after waiting").isZero();
                max = Math.max(max, Long.parseLong(done[3]));
            }
            assertThat(made).as("calls made").isEqualTo((long) jvms * threads * calls);
            assertThat(max).as("most calls in flight at once, across the JVMs").isEqualTo(LIMIT);
            assertThat(TestRedisSupport.shared().opsForValue().get(counter)).as("calls in flight after the last").isEqualTo("0");
        }
        finally {
            callers.forEach(Process::destroyForcibly);
        }
    }

    /** Starts {@code main} in a JVM of its own, on this JVM's class path. */
    private static Process java(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Reads {@code output} up to the first line starting with {@code start}, and answers it. */
    private static String awaitLine(BufferedReader output, String start) throws IOException {
        String line;
        do {
            line = output.readLine();
            assertThat(line).as("output of the JVM before a line starting with '%s'", start).isNotNull();
        }
        while (!line.startsWith(start));
        return line;
    }

    @Test
    void aKilledInstancesSlotsComeBackAfterTheLease() throws Exception {
        Process holder = java(ConcurrencyHolderMain.class, redis.host(), Integer.toString(redis.port()), prefix, "2", "2",
                Long.toString(LEASE.toMillis()));
        try {
            awaitLine(new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8)), "held");
            ConcurrencyLimiter other = RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(prefix)
                .failurePolicy(FailurePolicy.DENY).expectedInstances(1).localLimiters(new InMemoryRateLimiterFactory()).build()
                .createConcurrencyLimiter("calls", ConcurrencyLimiterConfig.of(2).withLease(LEASE));
            // Alive for three leases: its renewer keeps both slots.
            long aliveUntil = System.nanoTime() + LEASE.multipliedBy(3).toNanos();
            while (System.nanoTime() < aliveUntil) {
                assertThat(other.tryAcquire("k")).as("a slot of the live holder").isEmpty();
                Thread.sleep(50);
            }
            holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            long killed = System.nanoTime();
            while (other.tryAcquire("k").isEmpty()) {
                assertThat(Duration.ofNanos(System.nanoTime() - killed)).as("back within the lease, and a margin for renewals in flight")
                    .isLessThan(LEASE.multipliedBy(2));
                Thread.sleep(10);
            }
            assertThat(other.tryAcquire("k")).as("its second slot too").isPresent();
            other.close();
        }
        finally {
            holder.destroyForcibly();
        }
    }
}
