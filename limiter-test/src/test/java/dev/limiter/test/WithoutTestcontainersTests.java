package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Users without Testcontainers must still get a Redis: load TestRedis where Testcontainers does not exist. */
@RedisTest
class WithoutTestcontainersTests {

    @AfterEach
    void clearSettings() {
        System.clearProperty(Settings.DOCKER_PROPERTY);
    }

    @Test
    void startsRedisServerWhenTestcontainersIsAbsent() throws Exception {
        assumeTrue(System.getenv(Settings.URL_ENV) == null);
        assumeTrue(RedisServerProcess.findExecutable() != null, "redis-server is not installed");
        System.setProperty(Settings.DOCKER_PROPERTY, "true"); // reach the Testcontainers check itself
        URL mainClasses = TestRedis.class.getProtectionDomain().getCodeSource().getLocation();

        try (URLClassLoader loader = new URLClassLoader(new URL[] {mainClasses}, ClassLoader.getPlatformClassLoader())) {
            assertThat(loader.loadClass("dev.limiter.test.TestRedis")).isNotSameAs(TestRedis.class);
            Class<?> testRedis = loader.loadClass("dev.limiter.test.TestRedis");
            Object redis = testRedis.getMethod("start").invoke(null);
            try {
                assertThat(testRedis.getMethod("source").invoke(redis)).hasToString("REDIS_SERVER");
                int port = (int) testRedis.getMethod("port").invoke(redis);
                assertThat(RedisCli.pings("127.0.0.1", port)).isTrue();
            } finally {
                Method close = testRedis.getMethod("close");
                close.invoke(redis);
            }
        }
    }
}
