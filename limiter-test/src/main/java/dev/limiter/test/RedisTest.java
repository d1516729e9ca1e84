package dev.limiter.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class (or method) that starts or uses a Redis: {@link TestRedis}, {@link TestRedisCluster},
 * {@link TestRedisSentinel}, or an application context connected to one. It carries the JUnit tag
 * {@value #TAG}, so that the fast tests can run alone ({@code ./mvnw verify -Pfast} excludes the tag), and
 * registers {@link TestRedisExtension}, which passes {@link TestRedis#shared()} to {@link TestRedis} parameters.
 *
 * <pre>{@code
 * @RedisTest
 * class OrdersLimitTests {
 *     @Test
 *     void rejectsTheEleventhCall(TestRedis redis) { ... redis.url() ... }
 * }
 * }</pre>
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag(RedisTest.TAG)
@ExtendWith(TestRedisExtension.class)
public @interface RedisTest {

    /** The JUnit tag of tests that need a Redis; a build excludes it to run only the fast tests. */
    String TAG = "redis";
}
