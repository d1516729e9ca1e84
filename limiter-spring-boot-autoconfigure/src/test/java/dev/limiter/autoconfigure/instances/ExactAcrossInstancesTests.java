package dev.limiter.autoconfigure.instances;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11's scenario: three instances of an application on one healthy Redis, 48 concurrent callers on
 * one key, 300 calls for a limit of 50. Together they admit exactly 50 with every algorithm, on a cold
 * JVM right after startup as well as warm, every decision made by Redis, and Limiter logs no warning:
 * a healthy Redis never sends a limiter to its failure policy.
 */
@RedisTest
@Timeout(240)
class ExactAcrossInstancesTests {

    static final int INSTANCES = 3;

    static final long LIMIT = 50;

    static final Duration WINDOW = Duration.ofHours(1);

    static final int CALLS_PER_INSTANCE = 100;

    @Test
    void threeInstancesAdmitExactlyTheLimitColdAndWarmWithEveryAlgorithm() {
        TestRedis redis = TestRedis.shared();
        List<String> properties = new ArrayList<>(ExactRounds.limits(LIMIT, WINDOW));
        // The URL keeps a password or database of LIMITER_TEST_REDIS_URL. limiter.redis.timeout is left at its
        // default on purpose: the default is what the issue is about.
        properties.add("spring.data.redis.url=" + redis.url());
        properties.add("limiter.key-prefix=" + ExactRounds.keyPrefix());
        SoftAssertions soft = new SoftAssertions();
        try (Instances instances = Instances.start("exact", INSTANCES, properties)) {
            for (String limiter : InstanceApp.LIMITERS) {
                Round round = ExactRounds.round(instances, limiter, "cold-" + limiter, CALLS_PER_INSTANCE, WINDOW);
                System.out.println("cold " + limiter + ": " + round);
                ExactRounds.assertExact(soft, "cold " + limiter, round, LIMIT);
            }
            Round warmUp = instances.warmUp(Duration.ofSeconds(3));
            System.out.println("warm-up: " + warmUp);
            soft.assertThat(warmUp.errors()).as("warm-up: calls failing with anything but a rejection (%s)", warmUp).isZero();
            for (String limiter : InstanceApp.LIMITERS) {
                Round round = ExactRounds.round(instances, limiter, "warm-" + limiter, CALLS_PER_INSTANCE, WINDOW);
                System.out.println("warm " + limiter + ": " + round);
                ExactRounds.assertExact(soft, "warm " + limiter, round, LIMIT);
            }
            ExactRounds.assertNoLimiterWarnings(soft, instances);
        }
        soft.assertAll();
    }

}
