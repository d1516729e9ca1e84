/**
 * A real Redis for tests, without Spring: {@link dev.limiter.test.TestRedis} finds or starts one
 * ({@code LIMITER_TEST_REDIS_URL}, Testcontainers, or a local {@code redis-server}),
 * {@link dev.limiter.test.TestRedisExtension} injects the shared one into JUnit 5 tests,
 * {@link dev.limiter.test.RedisTest} tags a test that needs a Redis (so {@code -Pfast} can leave it out), and
 * {@link dev.limiter.test.TestRedisCluster} gives tests a Redis Cluster ({@code LIMITER_TEST_REDIS_CLUSTER_NODES},
 * or six local {@code redis-server} nodes) whose masters they can kill, and
 * {@link dev.limiter.test.TestRedisSentinel} a master, a replica and three sentinels
 * ({@code LIMITER_TEST_REDIS_SENTINEL_NODES}, or local {@code redis-server} processes) whose master they can kill.
 * {@link dev.limiter.test.TestRedis#server()} starts a {@code redis-server} that keeps its data across a crash, serves
 * over TLS or requires an ACL user, and {@link dev.limiter.test.LatencyProxy} slows a server's replies down.
 */
package dev.limiter.test;
