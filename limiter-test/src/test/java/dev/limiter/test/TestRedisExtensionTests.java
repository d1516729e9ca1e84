package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link RedisTest} registers {@link TestRedisExtension}: the shared Redis reaches every kind of parameter. */
@RedisTest
class TestRedisExtensionTests {

    private static TestRedis fromBeforeAll;
    private final TestRedis fromConstructor;
    private TestRedis fromBeforeEach;

    TestRedisExtensionTests(TestRedis redis) {
        this.fromConstructor = redis;
    }

    @BeforeAll
    static void beforeAll(TestRedis redis) {
        fromBeforeAll = redis;
    }

    @BeforeEach
    void beforeEach(TestRedis redis) {
        fromBeforeEach = redis;
    }

    @Test
    void injectsTheSharedRedisEverywhere(TestRedis redis) {
        assertThat(redis).isSameAs(TestRedis.shared())
                .isSameAs(fromConstructor)
                .isSameAs(fromBeforeEach)
                .isSameAs(fromBeforeAll);
        assertThat(RedisCli.pings(redis)).isTrue();
    }
}
