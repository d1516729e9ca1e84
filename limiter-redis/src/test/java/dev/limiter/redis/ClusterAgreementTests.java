package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Random;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedisCluster;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Every algorithm's script on a real Redis Cluster (three masters with replicas) decides exactly as
 * its in-memory twin, with two limits and keys spread over all masters: a script touches only keys
 * of one hash tag, so the cluster never answers CROSSSLOT and the decisions are the standalone ones.
 */
@RedisTest
class ClusterAgreementTests {

    static final RateLimiterConfig CONFIG = RateLimiterConfig.of(Algorithm.FIXED_WINDOW, LimitSpec.of(7, Duration.ofSeconds(10)),
            LimitSpec.of(20, Duration.ofMinutes(1)));

    static LettuceConnectionFactory connections;

    static StringRedisTemplate cluster;

    @BeforeAll
    static void connect() {
        connections = new LettuceConnectionFactory(new RedisClusterConfiguration(TestRedisCluster.shared().nodes()));
        connections.afterPropertiesSet();
        connections.start();
        cluster = new StringRedisTemplate(connections);
    }

    @AfterAll
    static void disconnect() {
        connections.destroy();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void scriptsOnAClusterDecideAsTheirTwins(Algorithm algorithm) {
        agreeWithTwin(algorithm, false);
    }

    /** The same through the reactive API, which routes each script to its key's master as well. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void asyncDecisionsOnAClusterDecideAsTheirTwins(Algorithm algorithm) {
        agreeWithTwin(algorithm, true);
    }

    private void agreeWithTwin(Algorithm algorithm, boolean async) {
        RateLimiterConfig config = new RateLimiterConfig(algorithm, bursts(algorithm), CONFIG.subWindows(), Duration.ZERO);
        VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START + 1_234_567);
        RedisRateLimiterFactory.Builder builder = RedisRateLimiterFactory.builder(cluster)
            .keyPrefix(TestRedisSupport.uniquePrefix())
            .clock(clock)
            .failurePolicy(FailurePolicy.DENY)
            .expectedInstances(1);
        RateLimiter redis = (async ? builder.reactiveRedis(new ReactiveStringRedisTemplate(connections)) : builder).build().create("agree", config);
        RateLimiter memory = Backend.MEMORY.factory(clock, null).create("agree", config);
        Random random = new Random(20261122L); // fixed seed: a failure replays exactly
        int allowed = 0;
        int rejected = 0;
        for (int step = 0; step < 300; step++) {
            // Steps of up to 1 s keep every state alive for seconds of real time (Redis TTLs run in real time).
            clock.advanceMicros(random.nextInt(1_000_001));
            String key = "user-" + random.nextInt(12);
            long cost = 1 + random.nextInt(3);
            Decision fromCluster = async ? redis.tryAcquireAsync(key, cost).toCompletableFuture().join()
                    : redis.tryAcquire(key, cost);
            assertEquals(memory.tryAcquire(key, cost), fromCluster, "step " + step + ", key " + key + ", cost " + cost);
            if (fromCluster.allowed()) {
                allowed++;
            }
            else {
                rejected++;
            }
        }
        // DENY answers with a 1 s retry-after and no violated limit: had the cluster failed, the twin would disagree.
        assertThat(allowed).isPositive();
        assertThat(rejected).isPositive();
    }

    /** Bucket algorithms get a burst above the limit, to exercise it too. */
    private static java.util.List<LimitSpec> bursts(Algorithm algorithm) {
        return algorithm.isBucket() ? java.util.List.of(CONFIG.limits().get(0).withBurst(9), CONFIG.limits().get(1).withBurst(24))
                : CONFIG.limits();
    }
}
