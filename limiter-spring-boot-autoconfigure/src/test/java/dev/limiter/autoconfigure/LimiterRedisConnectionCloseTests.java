package dev.limiter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionCommands;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The application's shutdown never waits for the limiters' Redis connection longer than its client's
 * shutdown timeout and a margin: Lettuce's client shutdown waits without a bound and, rarely, for ever.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimiterRedisConnectionCloseTests {

    /** Only a hang fails this bound: closeWithin waits 100 ms. */
    private static final Duration HANG = Duration.ofSeconds(60);

    @Test
    void aCloseThatNeverEndsHoldsShutdownNoLongerThanTheWait(CapturedOutput output) {
        CountDownLatch never = new CountDownLatch(1);
        try {
            boolean closed = assertTimeoutPreemptively(HANG,
                    () -> LimiterRedisConnection.closeWithin(() -> awaitUninterruptibly(never), Duration.ofMillis(100)));
            assertThat(closed).isFalse();
            assertThat(output).contains("The rate limiters' Redis connection did not close within 100 ms")
                .contains("spring.data.redis.lettuce.shutdown-timeout");
        }
        finally {
            never.countDown();
        }
    }

    @Test
    void aCloseThatEndsIsWaitedFor() {
        AtomicBoolean done = new AtomicBoolean();
        boolean closed = LimiterRedisConnection.closeWithin(() -> {
            sleepUninterruptibly(200);
            done.set(true);
        }, HANG);
        assertThat(closed).isTrue();
        assertThat(done).isTrue();
    }

    @Test
    void aCloseThatFailsIsLoggedNotThrown(CapturedOutput output) {
        boolean closed = LimiterRedisConnection.closeWithin(() -> {
            throw new IllegalStateException("broken pipe");
        }, HANG);
        assertThat(closed).isTrue();
        assertThat(output).contains("Closing the rate limiters' Redis connection failed").contains("broken pipe");
    }

    @Test
    @RedisTest
    void destroyClosesTheLimitersConnection() {
        TestRedis redis = TestRedis.shared();
        LettuceConnectionFactory application = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        application.afterPropertiesSet();
        application.start();
        try {
            LimiterRedisConnection connection = new LimiterRedisConnection(application, Duration.ofMillis(500), Duration.ofSeconds(2));
            LettuceConnectionFactory own = (LettuceConnectionFactory) connection.template().getConnectionFactory();
            assertThat(connection.template().execute((RedisCallback<String>) RedisConnectionCommands::ping))
                .isEqualTo("PONG");
            assertTimeoutPreemptively(HANG, connection::destroy);
            assertThatIllegalStateException().isThrownBy(own::getConnection).withMessageContaining("destroyed");
        }
        finally {
            application.destroy();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            }
            catch (InterruptedException ex) {
                // Like a close that ignores interrupts.
            }
        }
    }

    private static void sleepUninterruptibly(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        for (long left = millis; left > 0; left = (end - System.nanoTime()) / 1_000_000) {
            try {
                Thread.sleep(left);
            }
            catch (InterruptedException ex) {
                // Finish the close.
            }
        }
    }
}
