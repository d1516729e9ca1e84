package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@RedisTest
class ConfiguredUrlTests {

    @AfterEach
    void clearSettings() {
        System.clearProperty(Settings.URL_PROPERTY);
    }

    @Test
    void configuredUrlIsUsedAndNeverStopped() {
        try (TestRedis underlying = TestRedis.start()) {
            System.setProperty(Settings.URL_PROPERTY, "redis://" + underlying.host() + ":" + underlying.port() + "/2");

            TestRedis redis = TestRedis.start();

            assertThat(redis.source()).isEqualTo(TestRedis.Source.URL);
            assertThat(redis.host()).isEqualTo(underlying.host());
            assertThat(redis.port()).isEqualTo(underlying.port());
            assertThat(redis.url()).isEqualTo("redis://" + underlying.host() + ":" + underlying.port() + "/2");
            assertThat(RedisCli.pings(redis)).isTrue();
            assertThatThrownBy(redis::kill).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("LIMITER_TEST_REDIS_URL");
            assertThatThrownBy(redis::restart).isInstanceOf(UnsupportedOperationException.class);

            redis.close();

            assertThat(RedisCli.pings(underlying)).isTrue();
        }
    }

    @Test
    void passwordIsKeptInUrlButHiddenInToString() {
        System.setProperty(Settings.URL_PROPERTY, "redis://app:s3cret@cache.example:6380/1");

        TestRedis redis = TestRedis.start();

        assertThat(redis.url()).isEqualTo("redis://app:s3cret@cache.example:6380/1");
        assertThat(redis.host()).isEqualTo("cache.example");
        assertThat(redis.port()).isEqualTo(6380);
        assertThat(redis.toString()).doesNotContain("s3cret").contains("app:***@cache.example:6380/1");
    }

    @Test
    void parsesTheUsualForms() {
        assertThat(RedisUrl.parse("redis://localhost:6380"))
                .isEqualTo(new RedisUrl("redis", null, "localhost", 6380, null));
        assertThat(RedisUrl.parse(" redis://cache ").toString()).isEqualTo("redis://cache:6379");
        assertThat(RedisUrl.parse("redis://:pw@h:1/0"))
                .isEqualTo(new RedisUrl("redis", ":pw", "h", 1, 0));
        assertThat(RedisUrl.parse("redis://user:p%40ss@h:1/15").toString()).isEqualTo("redis://user:p%40ss@h:1/15");
        assertThat(RedisUrl.parse("rediss://h:6390").toString()).isEqualTo("rediss://h:6390");
        RedisUrl ipv6 = RedisUrl.parse("redis://[::1]:7000");
        assertThat(ipv6.host()).isEqualTo("::1");
        assertThat(ipv6.toString()).isEqualTo("redis://[::1]:7000");
    }

    @Test
    void rejectsWhatIsNotARedisUrlWithoutShowingThePassword() {
        assertThatThrownBy(() -> RedisUrl.parse("http://h:1")).hasMessageContaining("redis://");
        assertThatThrownBy(() -> RedisUrl.parse("localhost:6379")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisUrl.parse("redis://h:1/db")).hasMessageContaining("database number");
        assertThatThrownBy(() -> RedisUrl.parse("redis:///0")).hasMessageContaining("no host");
        assertThatThrownBy(() -> RedisUrl.parse("redis://u:topsecret@h:1/x"))
                .hasMessageContaining("LIMITER_TEST_REDIS_URL")
                .hasMessageNotContaining("topsecret");
    }
}
