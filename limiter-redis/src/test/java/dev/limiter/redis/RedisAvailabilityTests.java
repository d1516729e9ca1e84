package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.limiter.test.RedisTest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;

/**
 * Redis counts as out on evidence only: a refused or lost connection, Redis saying it cannot serve, or
 * calls failing for the outage time with none succeeding. Elapsed time is virtual.
 */
@RedisTest
class RedisAvailabilityTests {

    static final Duration OUTAGE_AFTER = Duration.ofSeconds(1);

    final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    final Background background = new Background();

    final RedisAvailability availability = new RedisAvailability(TestRedisSupport.shared(), Duration.ofHours(1), OUTAGE_AFTER, null,
            background, nanos::get);

    @AfterEach
    void stop() {
        background.close();
    }

    static RuntimeException timeout() {
        return new QueryTimeoutException("Redis command timed out");
    }

    void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    @Test
    void aSlowCallIsNoOutage() {
        assertThat(availability.failed("k", timeout())).isFalse();
        assertThat(availability.available()).isTrue();
    }

    @Test
    void manyCallsTimingOutTogetherAreNoOutage() {
        // A paused client JVM (GC, CPU throttling) sees all its calls in flight time out at once.
        for (int i = 0; i < 48; i++) {
            assertThat(availability.failed("k", timeout())).isFalse();
        }
        assertThat(availability.available()).isTrue();
    }

    @Test
    void callsFailingForTheOutageTimeWithNoneSucceedingAreAnOutage() {
        assertThat(availability.failed("k", timeout())).isFalse();
        advance(OUTAGE_AFTER.minusMillis(1));
        assertThat(availability.failed("k", timeout())).isFalse();
        advance(Duration.ofMillis(1));
        assertThat(availability.failed("k", timeout())).isTrue();
        assertThat(availability.available()).isFalse();
        // Once out, every further failure says so.
        assertThat(availability.failed("k", timeout())).isTrue();
    }

    @Test
    void aSuccessEndsTheRunOfFailures() {
        availability.failed("k", timeout());
        advance(OUTAGE_AFTER.minusMillis(1));
        availability.succeeded();
        advance(Duration.ofMillis(1));
        assertThat(availability.failed("k", timeout())).as("a new run begins").isFalse();
        advance(OUTAGE_AFTER.minusMillis(1));
        assertThat(availability.failed("k", timeout())).isFalse();
        assertThat(availability.available()).isTrue();
    }

    @Test
    void aRefusedOrLostConnectionIsAnOutageAtOnce() {
        assertThat(availability.failed("k", new RedisConnectionFailureException("Unable to connect", new IOException("Connection refused"))))
            .isTrue();
        assertThat(availability.available()).isFalse();
    }

    @Test
    void whatCountsAsEvidence() {
        assertThat(RedisAvailability.outageEvidence(new RedisConnectionFailureException("Unable to connect"))).isNotNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("Connection refused")))).isNotNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("LOADING Redis is loading the dataset in memory"))))
            .isNotNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("READONLY You can't write against a read only replica."))))
            .isNotNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("CLUSTERDOWN The cluster is down"))))
            .isNotNull();
        // What keeps every decision from succeeding: out of memory, unable to persist, refused credentials.
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException(
                "ERR Error running script (call to f_0d8a): @user_script:12: OOM command not allowed when used memory > 'maxmemory'."))))
            .isEqualTo("Redis answered OOM");
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("OOM command not allowed when used memory > 'maxmemory'."))))
            .isEqualTo("Redis answered OOM");
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("MISCONF Redis is configured to save RDB snapshots"))))
            .isNotNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("NOAUTH Authentication required."))))
            .isNotNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException(
                "WRONGPASS invalid username-password pair or user is disabled.")))).isNotNull();
        // A connection that dropped is made again at once by the client: no evidence, whether the call was in flight or came after.
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("Currently not connected. Commands are rejected."))))
            .isNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("Connection closed")))).isNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IOException("Connection reset by peer")))).isNull();
        // Slow is not out, whatever the timeout wraps; nor is an error of one script.
        assertThat(RedisAvailability.outageEvidence(timeout())).isNull();
        assertThat(RedisAvailability.outageEvidence(new QueryTimeoutException("timed out", new IOException("x")))).isNull();
        assertThat(RedisAvailability.outageEvidence(new RedisSystemException("x", new IllegalStateException("ERR user_script:1: bad")))).isNull();
    }

    @Test
    void whatTheClientNeverSent() {
        assertThat(RedisAvailability.neverSent(new RedisSystemException("x", new IllegalStateException("Currently not connected. Commands are rejected."))))
            .isTrue();
        for (String dropped : List.of("Connection closed", "Connection disconnected", "Connection reset by peer")) {
            assertThat(RedisAvailability.neverSent(new RedisSystemException("x", new IllegalStateException(dropped)))).as(dropped).isFalse();
        }
        assertThat(RedisAvailability.neverSent(timeout())).isFalse();
    }

    @Test
    void withNoOutageTimeEveryFailureIsAnOutage() {
        RedisAvailability oneStrike = new RedisAvailability(TestRedisSupport.shared(), Duration.ofHours(1), Duration.ZERO, null, background,
                nanos::get);
        assertThat(oneStrike.failed("k", timeout())).isTrue();
        assertThat(oneStrike.available()).isFalse();
    }

    @Test
    void theProbeEndsTheOutageOnceRedisAnswers() throws InterruptedException {
        RedisAvailability quick = new RedisAvailability(TestRedisSupport.shared(), Duration.ofMillis(10), OUTAGE_AFTER, null, background,
                nanos::get);
        quick.failed(TestRedisSupport.uniquePrefix() + ":{probe}", new RedisConnectionFailureException("lost"));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!quick.available() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(quick.available()).as("the probe found the shared test Redis answering").isTrue();
        assertThat(quick.failingForMillis()).isEqualTo(-1);
    }
}
