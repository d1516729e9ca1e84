package dev.limiter.autoconfigure.instances;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.test.LatencyProxy;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Redis that answers slowly but answers: three instances reach it through a proxy that holds every
 * reply back 150 ms for a few rounds. Slow is not down: every decision is still Redis', the instances
 * together still admit exactly the limit, and Limiter logs no warning. The limiters run with their
 * default {@code limiter.redis.timeout}, which a healthy-but-slow Redis must not exceed.
 */
@RedisTest
@Timeout(240)
class SlowRedisAcrossInstancesTests {

    static final int INSTANCES = 3;

    static final long LIMIT = 50;

    static final Duration WINDOW = Duration.ofHours(1);

    static final int CALLS_PER_INSTANCE = 100;

    static final Duration REPLY_DELAY = Duration.ofMillis(150);

    @Test
    void repliesDelayed150MillisecondsLeaveEveryDecisionToRedisAndExact() {
        TestRedis redis = TestRedis.shared();
        Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL,
                "the proxy fronts a Redis this test starts on this machine, not LIMITER_TEST_REDIS_URL's");
        try (LatencyProxy proxy = LatencyProxy.start(redis.host(), redis.port())) {
            List<String> properties = new ArrayList<>(ExactRounds.limits(LIMIT, WINDOW));
            properties.add("spring.data.redis.host=" + proxy.host());
            properties.add("spring.data.redis.port=" + proxy.port());
            properties.add("limiter.key-prefix=" + ExactRounds.keyPrefix());
            SoftAssertions soft = new SoftAssertions();
            try (Instances instances = Instances.start("slow", INSTANCES, properties)) {
                Round warmUp = instances.warmUp(Duration.ofSeconds(3));
                System.out.println("warm-up: " + warmUp);
                soft.assertThat(warmUp.errors()).as("warm-up: calls failing with anything but a rejection (%s)", warmUp).isZero();

                proxy.delayReplies(REPLY_DELAY);
                for (String limiter : InstanceApp.LIMITERS) {
                    Round round = ExactRounds.round(instances, limiter, "slow-" + limiter, CALLS_PER_INSTANCE, WINDOW);
                    System.out.println("replies delayed " + REPLY_DELAY.toMillis() + " ms, " + limiter + ": " + round);
                    ExactRounds.assertExact(soft, "replies delayed, " + limiter, round, LIMIT);
                    soft.assertThat(round.slowest())
                        .as("replies delayed, %s: the slowest call; shorter than the delay means Redis was not waited for (%s)",
                                limiter, round)
                        .isGreaterThanOrEqualTo(REPLY_DELAY);
                }

                proxy.delayReplies(Duration.ZERO);
                for (String limiter : InstanceApp.LIMITERS) {
                    Round round = ExactRounds.round(instances, limiter, "after-" + limiter, CALLS_PER_INSTANCE, WINDOW);
                    System.out.println("replies on time again, " + limiter + ": " + round);
                    ExactRounds.assertExact(soft, "replies on time again, " + limiter, round, LIMIT);
                }
                ExactRounds.assertNoLimiterWarnings(soft, instances);
            }
            soft.assertAll();
        }
    }

}
