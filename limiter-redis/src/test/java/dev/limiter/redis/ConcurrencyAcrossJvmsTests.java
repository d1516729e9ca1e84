package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
 * An instance in a JVM of its own holds slots while it lives, renewing them across several leases, and
 * once it is killed its slots come back within a lease. Leases run on Redis TIME, the one clock JVMs share,
 * so this test waits for real time: a lease of one second.
 */
@RedisTest
@Timeout(120)
class ConcurrencyAcrossJvmsTests {

    static final Duration LEASE = Duration.ofSeconds(1);

    final TestRedis redis = TestRedis.shared();

    final String prefix = TestRedisSupport.uniquePrefix();

    @Test
    void aKilledInstancesSlotsComeBackAfterTheLease() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process holder = new ProcessBuilder(List.of(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                ConcurrencyHolderMain.class.getName(), redis.host(), Integer.toString(redis.port()), prefix, "2", "2",
                Long.toString(LEASE.toMillis()))).redirectErrorStream(true).start();
        try {
            BufferedReader output = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String line;
            do {
                line = output.readLine();
                assertThat(line).as("the holder's output before it holds its slots").isNotNull();
            }
            while (!line.equals("held"));
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
