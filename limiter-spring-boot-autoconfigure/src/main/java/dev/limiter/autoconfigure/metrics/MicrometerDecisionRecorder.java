package dev.limiter.autoconfigure.metrics;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.limiter.Decision;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.RateLimiter;
import dev.limiter.spring.DecisionRecorder;
import dev.limiter.spring.Outcome;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Micrometer metrics and observations of every decision. Meters are tagged with the limiter, its
 * algorithm, the outcome and the backend, never with the key (unbounded, and often personal data):
 * <ul>
 * <li>{@code limiter.decisions}: counter of calls by outcome ({@code allowed}, {@code rejected},
 * {@code fallback}, {@code shadow_rejected}, {@code error}) and backend ({@code redis},
 * {@code memory}, {@code local-fallback}, {@code local-deny-cache}, {@code failure-policy},
 * {@code unlimited} for an unlimited key or plan, or {@code none} for an error);</li>
 * <li>{@code limiter.near_limit}: counter of allowed calls that left less than 20% of the limit
 * ({@code remaining * 5 < limit}), tagged with the limiter and its algorithm: a key close to being
 * rejected, before anything is;</li>
 * <li>{@code limiter.redis.duration}: timer of the Redis round trip of each decision;</li>
 * <li>an observation {@code limiter.decision} around each decision, so traces show it.</li>
 * </ul>
 * Meters are looked up once per limiter, outcome and backend, then kept.
 */
final class MicrometerDecisionRecorder implements DecisionRecorder, DecisionListener {

    static final String DECISIONS = "limiter.decisions";

    static final String NEAR_LIMIT = "limiter.near_limit";

    static final String REDIS_DURATION = "limiter.redis.duration";

    static final String OBSERVATION = "limiter.decision";

    private static final Outcome[] OUTCOMES = Outcome.values();

    private static final DecisionSource[] SOURCES = DecisionSource.values();

    private final MeterRegistry meters;

    private final ObservationRegistry observations;

    private final Map<String, LimiterMeters> byLimiter = new ConcurrentHashMap<>();

    MicrometerDecisionRecorder(MeterRegistry meters, ObservationRegistry observations) {
        this.meters = meters;
        this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
    }

    @Override
    public Decision decide(RateLimiter limiter, String key, long permits) {
        if (observations.isNoop()) {
            return limiter.tryAcquire(key, permits);
        }
        Observation observation = start(limiter);
        try {
            return decided(observation, limiter.tryAcquire(key, permits));
        }
        catch (RuntimeException ex) {
            observation.error(ex);
            throw ex;
        }
        finally {
            observation.stop();
        }
    }

    @Override
    public CompletionStage<Decision> decideAsync(RateLimiter limiter, String key, long permits) {
        if (observations.isNoop()) {
            return limiter.tryAcquireAsync(key, permits);
        }
        Observation observation = start(limiter);
        try {
            return limiter.tryAcquireAsync(key, permits).whenComplete((decision, failure) -> {
                if (failure != null) {
                    observation.error(failure);
                }
                else {
                    decided(observation, decision);
                }
                observation.stop();
            });
        }
        catch (RuntimeException ex) {
            observation.error(ex);
            observation.stop();
            throw ex;
        }
    }

    private Observation start(RateLimiter limiter) {
        return Observation.createNotStarted(OBSERVATION, observations)
            .contextualName("rate limit " + limiter.name())
            .lowCardinalityKeyValue("limiter", limiter.name())
            .lowCardinalityKeyValue("algorithm", limiter.algorithm().configName())
            .start();
    }

    private static Decision decided(Observation observation, Decision decision) {
        observation.lowCardinalityKeyValue("allowed", Boolean.toString(decision.allowed()))
            .lowCardinalityKeyValue("backend", DecisionRecorder.backendTag(decision.source()));
        return decision;
    }

    @Override
    public void count(RateLimiter limiter, Decision decision, Outcome outcome) {
        LimiterMeters meters = meters(limiter);
        meters.counter(outcome, decision.source()).increment();
        if (outcome == Outcome.ALLOWED && nearLimit(decision)) {
            meters.nearLimit.increment();
        }
    }

    /** Whether an allowed decision left less than 20% of its limit, in whole numbers: remaining / limit < 1/5. */
    static boolean nearLimit(Decision decision) {
        return decision.remaining() * 5 < decision.limit();
    }

    @Override
    public void countError(RateLimiter limiter) {
        meters(limiter).error.increment();
    }

    @Override
    public void onDecision(RateLimiter limiter, Decision decision, long redisNanos) {
        if (redisNanos >= 0) {
            meters(limiter).redis.record(redisNanos, TimeUnit.NANOSECONDS);
        }
    }

    private LimiterMeters meters(RateLimiter limiter) {
        LimiterMeters found = byLimiter.get(limiter.name());
        return (found != null) ? found : byLimiter.computeIfAbsent(limiter.name(), name -> new LimiterMeters(limiter));
    }

    /** The meters of one limiter; counters are registered on first use. */
    private final class LimiterMeters {

        private final String name;

        private final String algorithm;

        private final Counter[] counters = new Counter[OUTCOMES.length * SOURCES.length];

        private final Counter error;

        /** Registered with the limiter's first decision, so that its rate reads 0 rather than nothing until a key nears the limit. */
        private final Counter nearLimit;

        private final Timer redis;

        LimiterMeters(RateLimiter limiter) {
            this.name = limiter.name();
            this.algorithm = limiter.algorithm().configName();
            this.error = counter(Outcome.ERROR, "none");
            this.nearLimit = Counter.builder(NEAR_LIMIT)
                .description("Allowed calls that left less than 20% of the limit")
                .tags("limiter", name, "algorithm", algorithm)
                .register(meters);
            this.redis = Timer.builder(REDIS_DURATION)
                .description("Round trip of one rate limit decision's script to Redis")
                .tags("limiter", name, "algorithm", algorithm)
                .register(meters);
        }

        Counter counter(Outcome outcome, DecisionSource source) {
            int index = outcome.ordinal() * SOURCES.length + source.ordinal();
            Counter counter = counters[index];
            if (counter == null) {
                // Registering twice returns the same counter: a race only repeats the lookup.
                counter = counter(outcome, DecisionRecorder.backendTag(source));
                counters[index] = counter;
            }
            return counter;
        }

        private Counter counter(Outcome outcome, String backend) {
            return Counter.builder(DECISIONS)
                .description("Rate limited calls, by what became of them and what decided")
                .tags("limiter", name, "algorithm", algorithm, "outcome", outcome.tag(), "backend", backend)
                .register(meters);
        }
    }
}
