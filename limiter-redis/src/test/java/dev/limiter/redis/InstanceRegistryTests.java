package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Instances count each other through heartbeats in Redis; a key of its own, with a TTL. Time is virtual. */
@RedisTest
class InstanceRegistryTests {

    static final Duration INTERVAL = Duration.ofSeconds(5);

    final StringRedisTemplate redis = TestRedisSupport.shared();

    final String prefix = TestRedisSupport.uniquePrefix();

    final VirtualClock clock = new VirtualClock();

    InstanceRegistry registry() {
        return new InstanceRegistry(redis, prefix, INTERVAL, clock, 0);
    }

    @Test
    void instancesCountEachOther() {
        InstanceRegistry a = registry();
        InstanceRegistry b = registry();
        InstanceRegistry c = registry();
        a.beat(true);
        assertThat(a.instances()).isEqualTo(1);
        b.beat(true);
        c.beat(true);
        a.beat(true);
        assertThat(a.instances()).isEqualTo(3);
        assertThat(c.instances()).isEqualTo(3);
        assertThat(a.isConfigured()).isFalse();
    }

    @Test
    void aShortIntervalStillLetsAnInstanceCountThroughAnOutageOfSeconds() {
        InstanceRegistry quick = new InstanceRegistry(redis, prefix, Duration.ofSeconds(1), clock, 0);
        assertThat(quick.alive()).isEqualTo(InstanceRegistry.LEAST_ALIVE);
        assertThat(registry().alive()).isEqualTo(INTERVAL.multipliedBy(InstanceRegistry.MISSED_HEARTBEATS));
    }

    @Test
    void theCountHeldThroughAnOutageDoesNotFallWhenTheOthersExpiredMeanwhile() {
        InstanceRegistry a = registry();
        InstanceRegistry b = registry();
        a.beat(true);
        b.beat(true);
        a.beat(true);
        assertThat(a.instances()).isEqualTo(2);
        a.hold();
        // An outage longer than b's heartbeat lives: the first heartbeat back finds b expired.
        clock.advance(a.alive().plusMillis(1));
        a.beat(true);
        assertThat(a.counted()).isEqualTo(1);
        assertThat(a.instances()).as("held while the outage is settled").isEqualTo(2);
        a.release();
        assertThat(a.instances()).isEqualTo(1);
    }

    @Test
    void anInstanceThatLeavesOrFallsSilentNoLongerCounts() {
        InstanceRegistry a = registry();
        InstanceRegistry b = registry();
        InstanceRegistry c = registry();
        a.beat(true);
        b.beat(true);
        c.beat(true);
        c.leave();
        a.beat(true);
        assertThat(a.instances()).isEqualTo(2);
        // b misses three heartbeats.
        clock.advance(a.alive().minusMillis(1));
        a.beat(true);
        assertThat(a.instances()).as("b still counts").isEqualTo(2);
        clock.advance(Duration.ofMillis(1));
        a.beat(true);
        assertThat(a.instances()).isEqualTo(1);
    }

    /** An instance alive that misses two heartbeats is silent to the others, until it beats again. */
    @Test
    void anInstanceThatMissesTwoHeartbeatsIsSilent() {
        InstanceRegistry a = registry();
        InstanceRegistry b = registry();
        a.beat(true);
        b.beat(true);
        a.beat(true);
        assertThat(a.silent()).isZero();
        clock.advance(INTERVAL.multipliedBy(InstanceRegistry.SILENT_HEARTBEATS));
        a.beat(true);
        assertThat(a.silent()).as("b missed two heartbeats, not more").isZero();
        clock.advance(Duration.ofMillis(1));
        a.beat(true);
        assertThat(a.silent()).as("b is silent").isEqualTo(1);
        assertThat(a.instances()).as("and still counts").isEqualTo(2);
        b.beat(true);
        assertThat(b.silent()).as("a beat just now").isZero();
        a.beat(true);
        assertThat(a.silent()).isZero();
    }

    @Test
    void theCountLivesInOneKeyWithATtl() {
        InstanceRegistry a = registry();
        a.beat(true);
        // The instances alive, and when each last owed Redis nothing: one hash tag, so one slot of a cluster.
        assertThat(TestRedisSupport.keysUnder(redis, prefix)).containsExactlyInAnyOrder(prefix + ":{instances}", prefix + ":{instances}:clean", prefix + ":{instances}:beats",
                prefix + ":{instances}:seen");
        // Redis' own clock runs the TTLs: no longer than three intervals.
        for (String key : TestRedisSupport.keysUnder(redis, prefix)) {
            assertThat(TestRedisSupport.pttl(redis, key)).as(key).isPositive()
                .isLessThanOrEqualTo(a.alive().toMillis());
        }
        a.leave();
        assertThat(TestRedisSupport.keysUnder(redis, prefix)).as("the last one out removes the keys").isEmpty();
    }

    @Test
    void aConfiguredCountWins() {
        InstanceRegistry a = new InstanceRegistry(redis, prefix, INTERVAL, clock, 7);
        a.beat(true);
        assertThat(a.instances()).isEqualTo(7);
        assertThat(a.counted()).isEqualTo(1);
        assertThat(a.isConfigured()).isTrue();
    }

    @Test
    void aFailedHeartbeatKeepsTheLastCount() {
        InstanceRegistry a = registry();
        InstanceRegistry b = registry();
        a.beat(true);
        b.beat(true);
        a.beat(true);
        InstanceRegistry broken = new InstanceRegistry(new StringRedisTemplate(), prefix, INTERVAL, clock, 0);
        assertThat(broken.beat(true)).as("keeps beating").isTrue();
        assertThat(broken.instances()).isEqualTo(1);
        assertThat(a.instances()).isEqualTo(2);
    }

    @Test
    void anInstanceWhoseHeartbeatsGoUnansweredForTwoIntervalsMayNotKnowOfASilentOneAndKeepsToItsShares() {
        long[] nanos = { 0 };
        InstanceRegistry a = new InstanceRegistry(redis, prefix, INTERVAL, clock, 0, () -> nanos[0]);
        InstanceRegistry b = registry();
        assertThat(a.uninformed()).as("before its first heartbeat").isFalse();
        a.beat(true);
        assertThat(a.uninformed()).as("alone").isFalse();
        b.beat(true);
        a.beat(true);
        assertThat(a.instances()).isEqualTo(2);
        nanos[0] += INTERVAL.toNanos() * InstanceRegistry.SILENT_HEARTBEATS;
        assertThat(a.uninformed()).as("answered two intervals ago").isFalse();
        assertThat(a.foundSilent()).isFalse();
        nanos[0] += 1;
        assertThat(a.uninformed()).as("unanswered for longer").isTrue();
        // b went silent at its last heartbeat and waits four intervals before it admits its shares;
        // a would have learned of it at an answered heartbeat since, and keeps to its shares until one is.
        nanos[0] += INTERVAL.toNanos() * 2;
        assertThat(a.foundSilent()).isTrue();
        a.beat(true);
        assertThat(a.uninformed()).as("answered again").isFalse();
    }

    @Test
    void aHeartbeatThatFindsAnotherSilentSaysSoBeforeItCountsAsNews() {
        long[] nanos = { 0 };
        InstanceRegistry a = new InstanceRegistry(redis, prefix, INTERVAL, clock, 0, () -> nanos[0]);
        InstanceRegistry b = registry();
        boolean[] informedWhenTold = { true };
        a.whenOthersSilent(() -> informedWhenTold[0] = !a.uninformed());
        a.beat(true);
        b.beat(true);
        a.beat(true);
        nanos[0] += INTERVAL.toNanos() * 3;
        clock.advance(INTERVAL.multipliedBy(InstanceRegistry.SILENT_HEARTBEATS).plusMillis(1));
        a.beat(true);
        assertThat(a.silent()).isEqualTo(1);
        assertThat(informedWhenTold[0]).as("still uninformed when told, so no decision read the news first").isFalse();
    }
}
