package dev.limiter.autoconfigure.instances;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cold start against Redis as production secures it, over TLS or behind an ACL user: connecting takes
 * longer than on a plain local socket (a TLS handshake, an AUTH), and still the instance's first calls,
 * right after startup, are decided by Redis, exactly, with no warning from Limiter.
 */
@RedisTest
@Timeout(120)
class SecuredRedisColdStartTests {

    static final long LIMIT = 50;

    static final Duration WINDOW = Duration.ofHours(1);

    static final int CALLS = 100;

    @BeforeEach
    void needsRedisServer() {
        TestRedis.serverUnavailable().ifPresent(Assumptions::abort);
    }

    @Test
    void coldStartOverTls() {
        try (TestRedis redis = TestRedis.server().tls().start()) {
            coldStart("tls", redis, List.of("spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis",
                    "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + redis.tlsCertificate().orElseThrow()));
        }
    }

    @Test
    void coldStartWithAnAclUser() {
        try (TestRedis redis = TestRedis.server().user("limiter", "s3cret-limiter").start()) {
            coldStart("acl", redis, List.of("spring.data.redis.username=" + redis.username().orElseThrow(),
                    "spring.data.redis.password=" + redis.password().orElseThrow()));
        }
    }

    private static void coldStart(String name, TestRedis redis, List<String> connection) {
        List<String> properties = new ArrayList<>(ExactRounds.limits(LIMIT, WINDOW));
        properties.add("spring.data.redis.host=" + redis.host());
        properties.add("spring.data.redis.port=" + redis.port());
        properties.addAll(connection);
        properties.add("limiter.key-prefix=" + ExactRounds.keyPrefix());
        SoftAssertions soft = new SoftAssertions();
        try (Instances instance = Instances.start(name, 1, properties)) {
            for (String limiter : InstanceApp.LIMITERS) {
                Round round = ExactRounds.round(instance, limiter, "cold-" + limiter, CALLS, WINDOW);
                System.out.println(name + ", cold " + limiter + ": " + round);
                ExactRounds.assertExact(soft, name + ", cold " + limiter, round, LIMIT);
            }
            List<String> warnings = instance.limiterWarnings();
            warnings.forEach(System.out::println);
            soft.assertThat(warnings).as("%s: WARN and ERROR lines of Limiter's loggers", name).isEmpty();
        }
        soft.assertAll();
    }

}
