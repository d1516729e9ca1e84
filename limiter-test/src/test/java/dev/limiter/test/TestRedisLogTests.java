package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TestRedis says which Redis the tests use: once at INFO, for the first Redis of a JVM, with why the
 * sources before it were passed over, then at DEBUG. Read through java.util.logging, where
 * {@link System.Logger} writes when no other logging framework takes it over.
 */
@RedisTest
class TestRedisLogTests {

    private final Logger logger = Logger.getLogger(TestRedis.class.getName());

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private final Handler handler = new Handler() {

        @Override
        public void publish(LogRecord record) {
            TestRedisLogTests.this.records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private Level level;

    @BeforeEach
    void capture() {
        this.level = this.logger.getLevel();
        this.logger.setLevel(Level.ALL);
        this.logger.addHandler(this.handler);
    }

    @AfterEach
    void release() {
        this.logger.removeHandler(this.handler);
        this.logger.setLevel(this.level);
    }

    /** A TestRedis of its own class loader starts with nothing announced yet, and without Testcontainers. */
    @Test
    void theFirstRedisOfAJvmIsAnnouncedAtInfoWithWhyTheOthersWerePassedOverThenAtDebug() throws Exception {
        assumeTrue(System.getenv(Settings.URL_ENV) == null);
        assumeTrue(RedisServerProcess.findExecutable() != null, "redis-server is not installed");
        URL mainClasses = TestRedis.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader loader = new URLClassLoader(new URL[] { mainClasses }, ClassLoader.getPlatformClassLoader())) {
            Class<?> testRedis = loader.loadClass(TestRedis.class.getName());
            AutoCloseable first = (AutoCloseable) testRedis.getMethod("start").invoke(null);
            AutoCloseable second = (AutoCloseable) testRedis.getMethod("start").invoke(null);
            try {
                int firstPort = (int) testRedis.getMethod("port").invoke(first);
                int secondPort = (int) testRedis.getMethod("port").invoke(second);
                assertThat(this.records).hasSize(2);
                assertThat(this.records.get(0).getLevel()).isEqualTo(Level.INFO);
                assertThat(this.records.get(0).getMessage()).startsWith("Tests use a Redis of its own: redis-server "
                        + RedisServerProcess.findExecutable() + " on 127.0.0.1:" + firstPort + " (pid ")
                    .contains("stopped when the JVM exits")
                    .endsWith("(Docker: Testcontainers (org.testcontainers:testcontainers) is not on the classpath.)");
                assertThat(this.records.get(1).getLevel()).isEqualTo(Level.FINE);
                assertThat(this.records.get(1).getMessage()).contains("127.0.0.1:" + secondPort);
            }
            finally {
                first.close();
                second.close();
            }
        }
    }

    /** The shared Redis is announced before any other, and later starts only at DEBUG. */
    @Test
    void laterRedisesAreAnnouncedAtDebug() {
        TestRedis shared = TestRedis.shared();
        this.records.clear();
        try (TestRedis own = TestRedis.start()) {
            assertThat(this.records).hasSize(1);
            assertThat(this.records.get(0).getLevel()).isEqualTo(Level.FINE);
            assertThat(this.records.get(0).getMessage()).startsWith("Tests use ")
                .contains((own.source() == TestRedis.Source.URL) ? "LIMITER_TEST_REDIS_URL" : ":" + own.port());
            assertThat(TestRedis.describe(shared)).contains("the Redis shared by this JVM's tests");
        }
    }
}
