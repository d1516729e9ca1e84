package dev.limiter.autoconfigure.instances;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.assertj.core.api.SoftAssertions;

/**
 * What the multi-instance tests share: the limiters' properties, and rounds that must admit exactly the
 * limit, every one of them decided by Redis.
 */
final class ExactRounds {

    private ExactRounds() {
    }

    /** A key prefix no other test uses, so that no test sees another's state. */
    static String keyPrefix() {
        return "instances-" + UUID.randomUUID();
    }

    /** The same limit and window for every limiter of {@link InstanceApp}, each with its own algorithm. */
    static List<String> limits(long limit, Duration window) {
        List<String> properties = new ArrayList<>();
        for (String limiter : InstanceApp.LIMITERS) {
            String prefix = "limiter.limiters." + limiter + ".";
            properties.add(prefix + "algorithm=" + limiter);
            properties.add(prefix + "limit=" + limit);
            properties.add(prefix + "window=" + window);
        }
        return properties;
    }

    /**
     * A round of {@code callsPerInstance} calls per instance on a fresh key. A fixed-window round that may
     * have spanned the end of a window (epoch-aligned, so that it rightly admits up to twice the limit) is
     * run again on another key: that happens about once in {@code window / round length} rounds.
     */
    static Round round(Instances instances, String limiter, String key, int callsPerInstance, Duration window) {
        Round round = instances.round(limiter, key, callsPerInstance);
        if (limiter.equals("fixed-window") && round.mayCrossWindowBoundary(window)) {
            round = instances.round(limiter, key + "-again", callsPerInstance);
        }
        return round;
    }

    /** Exactly {@code limit} admitted over all instances, no error, every decision made by Redis. */
    static void assertExact(SoftAssertions soft, String label, Round round, long limit) {
        soft.assertThat(round.admitted()).as("%s: admitted over all instances (%s)", label, round).isEqualTo(limit);
        soft.assertThat(round.errors()).as("%s: calls failing with anything but a rejection (%s)", label, round).isZero();
        soft.assertThat(round.nonRedis()).as("%s: decisions not made by Redis (%s)", label, round).isZero();
    }

    /** No WARN or ERROR line from Limiter's loggers in any instance's log, such as a switch to the failure policy. */
    static void assertNoLimiterWarnings(SoftAssertions soft, Instances instances) {
        List<String> warnings = instances.limiterWarnings();
        warnings.forEach(System.out::println);
        soft.assertThat(warnings).as("WARN and ERROR lines of Limiter's loggers, such as a switch to the failure policy").isEmpty();
    }

}
