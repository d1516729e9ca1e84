/**
 * A real Redis for tests, without Spring: {@link dev.limiter.test.TestRedis} finds or starts one
 * ({@code LIMITER_TEST_REDIS_URL}, Testcontainers, or a local {@code redis-server}), and
 * {@link dev.limiter.test.TestRedisExtension} injects the shared one into JUnit 5 tests.
 */
package dev.limiter.test;
