package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@RedisTest
class TestRedisTests {

    @AfterEach
    void clearSettings() {
        System.clearProperty(Settings.URL_PROPERTY);
        System.clearProperty(Settings.DOCKER_PROPERTY);
        System.clearProperty(Settings.SERVER_PROPERTY);
    }

    @Test
    void sharedIsOneInstanceThatAnswersPing() {
        TestRedis redis = TestRedis.shared();

        assertThat(TestRedis.shared()).isSameAs(redis);
        assertThat(RedisCli.pings(redis)).isTrue();
        if (redis.source() != TestRedis.Source.URL) {
            assertThat(redis.port()).isNotEqualTo(6379);
            assertThat(redis.url()).isEqualTo("redis://" + redis.host() + ":" + redis.port());
        }
    }

    @Test
    void sharedSurvivesCloseAndCannotBeKilled() {
        TestRedis redis = TestRedis.shared();

        redis.close();

        assertThat(RedisCli.pings(redis)).isTrue();
        assertThatThrownBy(redis::kill).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("TestRedis.start()");
        assertThatThrownBy(redis::restart).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void startGivesPrivateRedisThatCloseStops() {
        assumeNoConfiguredUrl();
        TestRedis redis = TestRedis.start();

        assertThat(redis).isNotSameAs(TestRedis.shared());
        assertThat(redis.port()).isNotEqualTo(TestRedis.shared().port()).isNotEqualTo(6379);
        assertThat(RedisCli.pings(redis)).isTrue();

        redis.close();

        assertThat(RedisCli.refuses(redis.host(), redis.port())).isTrue();
        redis.close(); // idempotent
        assertThatThrownBy(redis::kill).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pauseFreezesTheServerAndResumeKeepsItsData() throws IOException {
        assumeNoConfiguredUrl();
        try (TestRedis redis = TestRedis.start()) {
            assertThat(RedisCli.call(redis, "SET", "greeting", "hello")).isEqualTo("OK");
            redis.pause();
            // The port still accepts connections, but nothing answers: a stalled server.
            assertThat(RedisCli.pings(redis)).isFalse();
            redis.resume();
            assertThat(RedisCli.pings(redis)).isTrue();
            assertThat(RedisCli.call(redis, "GET", "greeting")).isEqualTo("hello");
        }
    }

    @Test
    void killThenRestartKeepsThePortAndStartsEmpty() throws IOException {
        assumeNoConfiguredUrl();
        try (TestRedis redis = TestRedis.start()) {
            int port = redis.port();
            assertThat(RedisCli.call(redis, "SET", "greeting", "hello")).isEqualTo("OK");

            redis.kill();

            assertThat(RedisCli.pings(redis)).isFalse();

            redis.restart();

            assertThat(redis.port()).isEqualTo(port);
            assertThat(RedisCli.pings(redis)).isTrue();
            assertThat(RedisCli.call(redis, "GET", "greeting")).isNull();
        }
    }

    @Test
    void restartOfRunningRedisEmptiesIt() throws IOException {
        assumeNoConfiguredUrl();
        try (TestRedis redis = TestRedis.start()) {
            RedisCli.call(redis, "SET", "k", "v");

            redis.restart();

            assertThat(RedisCli.call(redis, "GET", "k")).isNull();
        }
    }

    @Test
    void redisServerIsLoopbackOnlyAndPersistsNothing() throws IOException {
        assumeNoConfiguredUrl();
        try (TestRedis redis = TestRedis.start()) {
            assumeTrue(redis.source() == TestRedis.Source.REDIS_SERVER);

            assertThat(redis.host()).isEqualTo("127.0.0.1");
            assertThat(RedisCli.call(redis, "CONFIG", "GET", "bind")).isEqualTo(List.of("bind", "127.0.0.1"));
            assertThat(RedisCli.call(redis, "CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(RedisCli.call(redis, "CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
        }
    }

    @Test
    void redisServerMovesOnWhenAPortIsTaken() throws IOException {
        Path executable = RedisServerProcess.findExecutable();
        assumeTrue(executable != null, "redis-server is not installed");
        try (ServerSocket plainListener = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
                TestRedis otherRedis = TestRedis.start()) {
            int free = RedisServerProcess.freePort();
            Deque<Integer> ports = new ArrayDeque<>(List.of(plainListener.getLocalPort(), otherRedis.port(), free));

            RedisServerProcess server = RedisServerProcess.start(executable, ports::removeFirst);
            try {
                assertThat(server.port()).isEqualTo(free);
                assertThat(RedisCli.pings("127.0.0.1", free)).isTrue();
                assertThat(RedisCli.pings(otherRedis)).isTrue();
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void failureNamesEveryWayToGetARedis() {
        assumeNoConfiguredUrl();
        System.setProperty(Settings.DOCKER_PROPERTY, "false");
        System.setProperty(Settings.SERVER_PROPERTY, "/nonexistent/redis-server");

        assertThatThrownBy(TestRedis::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LIMITER_TEST_REDIS_URL")
                .hasMessageContaining("Docker")
                .hasMessageContaining("org.testcontainers:testcontainers as a test dependency")
                .hasMessageContaining("/nonexistent/redis-server is not an executable file")
                .hasMessageContaining("apt-get install redis-server");
    }

    @Test
    void failureShowsTheServerLog(@TempDir Path dir) throws IOException {
        assumeNoConfiguredUrl();
        assumeTrue(!System.getProperty("os.name").startsWith("Windows"));
        Path fake = dir.resolve("redis-server");
        Files.writeString(fake, "#!/bin/sh\necho 'FATAL CONFIG FILE ERROR: something is wrong'\nexit 1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        System.setProperty(Settings.DOCKER_PROPERTY, "false");
        System.setProperty(Settings.SERVER_PROPERTY, fake.toString());

        assertThatThrownBy(TestRedis::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code 1")
                .hasMessageContaining("FATAL CONFIG FILE ERROR: something is wrong")
                .hasMessageContaining("apt-get install redis-server");
    }

    @Test
    void dockerAskedButAbsentFallsThroughQuickly() {
        assumeNoConfiguredUrl();
        System.setProperty(Settings.DOCKER_PROPERTY, "true");
        long began = System.nanoTime();

        try (TestRedis redis = TestRedis.start()) {
            assertThat(RedisCli.pings(redis)).isTrue();
            if (redis.source() == TestRedis.Source.REDIS_SERVER) {
                assertThat((System.nanoTime() - began) / 1_000_000).as("millis to give up on Docker").isLessThan(5_000);
            }
        }
    }

    @Test
    void invalidDockerSettingIsExplained() {
        assumeNoConfiguredUrl();
        System.setProperty(Settings.DOCKER_PROPERTY, "maybe");

        assertThatThrownBy(TestRedis::start).hasMessageContaining("LIMITER_TEST_REDIS_DOCKER must be true, false or auto");
    }

    private static void assumeNoConfiguredUrl() {
        assumeTrue(System.getenv(Settings.URL_ENV) == null || System.getenv(Settings.URL_ENV).isBlank(),
                Settings.URL_ENV + " is set, so tests cannot start their own Redis");
    }
}
