package dev.limiter.internal.algorithm;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.Quota;
import dev.limiter.RateLimiterConfig;

/**
 * A model with one state per key: an idle key has none, and every request reads the limits at its
 * time, decides by {@link DecisionRule}, and applies an admitted request to the state. Like the Redis
 * key (whose TTL the spec sets to reset-after on every write), a key's state is forgotten once the
 * reset-after of its last admitted request has passed; going forward in time that changes nothing.
 *
 * @param <S> state of one key (mutable; null when the key was never admitted anything)
 */
abstract class KeyedModel<S> implements Model {

    final RateLimiterConfig config;

    private final long maxWaitMicros;

    private final Map<String, S> states = new HashMap<>();

    /** When each key's state expires: the time of its last admitted request plus that reset-after. */
    private final Map<String, Long> expiresAt = new HashMap<>();

    KeyedModel(RateLimiterConfig config) {
        this.config = config;
        this.maxWaitMicros = DecisionRule.micros(config.maxWait());
    }

    @Override
    public final Decision tryAcquire(String key, long permits, long nowMicros) {
        if (key == null || permits < 1) {
            throw new IllegalArgumentException("key must not be null and permits at least 1");
        }
        expire(key, nowMicros);
        S state = states.get(key);
        List<LimitView> before = read(state, nowMicros);
        Admission admission = DecisionRule.admit(before, permits, maxWaitMicros);
        if (!admission.allowed()) {
            return DecisionRule.decide(config, admission, before);
        }
        S after = take(state, nowMicros, permits);
        Decision decision = DecisionRule.decide(config, admission, read(after, nowMicros));
        keep(key, after, nowMicros, decision.resetAfter());
        return decision;
    }

    @Override
    public final Quota refund(String key, long permits, long nowMicros) {
        if (key == null || permits < 1) {
            throw new IllegalArgumentException("key must not be null and permits at least 1");
        }
        expire(key, nowMicros);
        S state = states.get(key);
        List<LimitView> before = read(state, nowMicros);
        if (state == null || whole(before)) {
            // Nothing to give back: nothing is written, not even the state brought to now.
            return quota(before);
        }
        S after = give(state, nowMicros, permits);
        List<LimitView> limits = read(after, nowMicros);
        Quota quota = quota(limits);
        if (whole(limits)) {
            // Whole in every limit: the key is deleted, as good as idle.
            forget(key);
        }
        else {
            keep(key, after, nowMicros, quota.resetAfter());
        }
        return quota;
    }

    /**
     * A charge is the algorithm's take of all the permits at once, with no admission asked: the debt
     * table of docs/settled-costs.md, with none of the chunks the scripts run it in.
     */
    @Override
    public final Quota charge(String key, long permits, long nowMicros) {
        if (key == null || permits < 1) {
            throw new IllegalArgumentException("key must not be null and permits at least 1");
        }
        expire(key, nowMicros);
        S after = take(states.get(key), nowMicros, permits);
        List<LimitView> limits = read(after, nowMicros);
        Quota quota = quota(limits);
        keep(key, after, nowMicros, quota.resetAfter());
        return quota;
    }

        @Override
    public final Quota quota(String key, long nowMicros) {
        expire(key, nowMicros);
        return quota(read(states.get(key), nowMicros));
    }

    /** Forgets the state of {@code key} once the reset-after of its last write has passed at {@code now}, as its TTL would. */
    private void expire(String key, long now) {
        if (expiresAt.containsKey(key) && now >= expiresAt.get(key)) {
            forget(key);
        }
    }

    /** Keeps {@code state} for {@code key}, written at {@code now}, until {@code resetAfter} has passed, as the key's TTL. */
    private void keep(String key, S state, long now, Duration resetAfter) {
        states.put(key, state);
        expiresAt.put(key, now + DecisionRule.micros(resetAfter));
    }

    private void forget(String key) {
        states.remove(key);
        expiresAt.remove(key);
    }

    /** Whether every limit is whole: nothing taken that has not come back yet. */
    private static boolean whole(List<LimitView> limits) {
        return limits.stream().allMatch(limit -> limit.resetAfter() == 0);
    }

    /** The quota the limits show: the decision's limit, remaining and reset-after, as for an admitted request of nothing. */
    private Quota quota(List<LimitView> limits) {
        return Quota.of(DecisionRule.decide(config, new Admission(true, 0, 0, -1), limits));
    }

    /** The limits as they stand at {@code now} for a key in {@code state} (null: idle). */
    abstract List<LimitView> read(S state, long now);

    /** The state after {@code permits} are taken at {@code now} from {@code state} (null: idle). */
    abstract S take(S state, long now, long permits);

    /** The state after {@code permits} are given back at {@code now} to {@code state}, by the algorithm's refund rule. */
    abstract S give(S state, long now, long permits);

    static long windowMicros(LimitSpec limit) {
        return DecisionRule.micros(limit.window());
    }
}
