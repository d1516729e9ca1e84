package dev.limiter.redis;

import java.util.Objects;
import java.util.stream.Collectors;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisAccessor;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.util.ClassUtils;

/** Where a Redis is, said in messages and health details: host:port, a cluster's nodes, a master's sentinels, or a socket. */
final class RedisAddress {

    private RedisAddress() {
    }

    /** Whether Lettuce is there: the Redis module names it optional. */
    static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient", RedisAddress.class.getClassLoader());

    static String of(RedisOperations<String, String> redis) {
        RedisConnectionFactory factory = (redis instanceof RedisAccessor accessor) ? accessor.getConnectionFactory() : null;
        if (LETTUCE_PRESENT && factory instanceof LettuceConnectionFactory lettuce) {
            RedisClusterConfiguration cluster = lettuce.getClusterConfiguration();
            if (lettuce.isClusterAware() && cluster != null) {
                return "cluster " + cluster.getClusterNodes().stream().map(Object::toString).collect(Collectors.joining(", "));
            }
            RedisSentinelConfiguration sentinel = lettuce.getSentinelConfiguration();
            if (lettuce.isRedisSentinelAware() && sentinel != null) {
                return "master " + Objects.requireNonNull(sentinel.getMaster(), "master").getName() + " of sentinels "
                        + sentinel.getSentinels().stream().map(Object::toString).collect(Collectors.joining(", "));
            }
            if (lettuce.getSocketConfiguration() != null) {
                return lettuce.getSocketConfiguration().getSocket();
            }
            return lettuce.getHostName() + ":" + lettuce.getPort();
        }
        return (factory != null) ? factory.getClass().getSimpleName() : "the Redis of " + redis.getClass().getSimpleName();
    }
}
