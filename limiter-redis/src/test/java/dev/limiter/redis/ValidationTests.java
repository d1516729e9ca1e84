package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Limiter names go into configuration keys and Redis keys unescaped, and prefixes sit before the hash
 * tag: anything that could break either must be refused up front, by both backends alike.
 */
@RedisTest
class ValidationTests {

    static final LimitSpec SPEC = LimitSpec.of(5, Duration.ofSeconds(10));

    @ParameterizedTest
    @ValueSource(strings = { "", " ", "a b", "a{b", "a}b", "{ab}", "a:b", "a*b", "a/b", "-ab", ".ab", "a\nb", "\u00e9t\u00e9" })
    void invalidLimiterNamesAreRejectedByBothBackends(String name) {
        for (Backend backend : Backend.values()) {
            RateLimiterFactory factory = backend.factory(new VirtualClock(), TestRedisSupport.uniquePrefix());
            for (Algorithm algorithm : Algorithm.values()) {
                assertThatThrownBy(() -> factory.create(name, algorithm, SPEC)).as("%s %s", backend, name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void nullAndOverlongNamesAreRejected(Backend backend) {
        RateLimiterFactory factory = backend.factory(new VirtualClock(), TestRedisSupport.uniquePrefix());
        assertThatThrownBy(() -> factory.create(null, Algorithm.TOKEN_BUCKET, SPEC)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> factory.create("a".repeat(101), Algorithm.TOKEN_BUCKET, SPEC))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(factory.create("a".repeat(100), Algorithm.TOKEN_BUCKET, SPEC).name()).hasSize(100);
        assertThat(factory.create("Orders.v2_eu-1", Algorithm.TOKEN_BUCKET, SPEC).name()).isEqualTo("Orders.v2_eu-1");
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "a{b", "a}b", "{", "}", "{tag}" })
    void keyPrefixesThatCouldMoveTheHashTagAreRejected(String prefix) {
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(TestRedisSupport.shared());
        assertThatThrownBy(() -> builder.keyPrefix(prefix)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("prefix");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void nullKeyIsRejected(Backend backend) {
        RateLimiter limiter = backend.factory(new VirtualClock(), TestRedisSupport.uniquePrefix())
            .create("orders", Algorithm.TOKEN_BUCKET, SPEC);
        assertThatThrownBy(() -> limiter.tryAcquire(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @org.junit.jupiter.api.Test
    void factoriesRejectMissingCollaborators() {
        assertThatThrownBy(() -> RedisRateLimiterFactory.builder(null).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InMemoryRateLimiterFactory.builder().clock(null).maxKeys(10).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InMemoryRateLimiterFactory.builder().clock(new VirtualClock()).maxKeys(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RateLimiterRegistry(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
