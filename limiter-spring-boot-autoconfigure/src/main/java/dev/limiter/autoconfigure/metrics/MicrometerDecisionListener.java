package dev.limiter.autoconfigure.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.ConcurrencyEvent;
import dev.limiter.Decision;
import dev.limiter.DecisionEvent;
import dev.limiter.DecisionListener;
import dev.limiter.DecisionSource;
import dev.limiter.Outcome;
import dev.limiter.RateLimiter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Micrometer metrics and observations of every decision, as a listener of the limiters' decision
 * events: one event per call, with what became of it. Meters are tagged with the limiter, its
 * algorithm, the outcome and the backend, never with the key (unbounded, and often personal data):
 * <ul>
 * <li>{@code limiter.decisions}: counter of calls by outcome ({@code allowed}, {@code rejected},
 * {@code fallback}, {@code shadow_rejected}, {@code error}) and backend ({@code redis},
 * {@code memory}, {@code local-fallback}, {@code local-deny-cache}, {@code lease} for permits leased
 * earlier by this instance, {@code failure-policy},
 * {@code unlimited} for an unlimited key or plan, or {@code none} for an error);</li>
 * <li>{@code limiter.near_limit}: counter of allowed calls that left less than 20% of the limit
 * ({@code remaining * 5 < limit}), tagged with the limiter and its algorithm: a key close to being
 * rejected, before anything is;</li>
 * <li>{@code limiter.redis.duration}: timer of the Redis round trip of each decision;</li>
 * <li>an observation {@code limiter.decision} around each decision, so traces show it: started
 * when the limiter starts deciding ({@link #onStart}), stopped by its event;</li>
 * <li>{@code limiter.concurrency.decisions}: counter of calls for a slot of a concurrency limit (each acquire once),
 * by outcome ({@code allowed}, {@code rejected}) and backend;</li>
 * <li>{@code limiter.concurrency.wait}: timer of each {@code acquire} of a slot, by outcome, waiting included.</li>
 * </ul>
 * Meters are looked up once per limiter, outcome and backend, then kept; a limiter retuned to another
 * algorithm counts on meters tagged with the new one from then on.
 */
final class MicrometerDecisionListener implements DecisionListener {

    static final String DECISIONS = "limiter.decisions";

    static final String NEAR_LIMIT = "limiter.near_limit";

    static final String REDIS_DURATION = "limiter.redis.duration";

    static final String OBSERVATION = "limiter.decision";

    static final String CONCURRENCY_DECISIONS = "limiter.concurrency.decisions";

    static final String CONCURRENCY_WAIT = "limiter.concurrency.wait";

    static final String SETTLE_FAILURES = "limiter.settle.failures";

    private static final Outcome[] OUTCOMES = Outcome.values();

    private static final DecisionSource[] SOURCES = DecisionSource.values();

    private final MeterRegistry meters;

    private final ObservationRegistry observations;

    private final Map<String, LimiterMeters> byLimiter = new ConcurrentHashMap<>();

    private final Map<String, ConcurrencyMeters> byConcurrencyLimit = new ConcurrentHashMap<>();

    MicrometerDecisionListener(MeterRegistry meters, ObservationRegistry observations) {
        this.meters = meters;
        this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
    }

    /** Without observations, this listener hears the decision; with them, one that stops the decision's observation first. */
    @Override
    public DecisionListener onStart(RateLimiter limiter) {
        if (observations.isNoop()) {
            return this;
        }
        Observation observation = Observation.createNotStarted(OBSERVATION, observations)
            .contextualName("rate limit " + limiter.name())
            .lowCardinalityKeyValue("limiter", limiter.name())
            .lowCardinalityKeyValue("algorithm", limiter.algorithm().configName())
            .start();
        return (event) -> {
            Decision decision = event.decision();
            if (decision != null) {
                observation.lowCardinalityKeyValue("allowed", Boolean.toString(decision.allowed()))
                    .lowCardinalityKeyValue("backend", decision.source().tag());
            }
            else if (event.failure() != null) {
                observation.error(event.failure());
            }
            observation.stop();
            onDecision(event);
        };
    }

    @Override
    public void onDecision(DecisionEvent event) {
        LimiterMeters meters = meters(event.limiter());
        Decision decision = event.decision();
        if (decision == null) {
            meters.error.increment();
            return;
        }
        if (event.redisNanos() >= 0) {
            meters.redis.record(event.redisNanos(), TimeUnit.NANOSECONDS);
        }
        meters.counter(event.outcome(), decision.source()).increment();
        if (event.outcome() == Outcome.ALLOWED && nearLimit(decision)) {
            meters.nearLimit.increment();
        }
    }

    /** Counts a call that could not be settled, by limiter; rare, so its counter is looked up each time. */
    @Override
    public void onSettleFailed(RateLimiter limiter, RuntimeException failure) {
        Counter.builder(SETTLE_FAILURES)
            .description("Calls whose actual cost could not be settled after they ran (settle expression or Redis failed)")
            .tags("limiter", limiter.name(), "algorithm", limiter.algorithm().configName())
            .register(this.meters)
            .increment();
    }


    @Override
    public void onConcurrencyDecision(ConcurrencyEvent event) {
        ConcurrencyMeters meters = byConcurrencyLimit.computeIfAbsent(event.limiter().name(), ConcurrencyMeters::new);
        meters.counter(event.outcome(), event.source()).increment();
        if (event.waitedNanos() >= 0) {
            meters.waited(event.outcome()).record(event.waitedNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** Whether an allowed decision left less than 20% of its limit, in whole numbers: remaining / limit < 1/5. */
    static boolean nearLimit(Decision decision) {
        return decision.remaining() * 5 < decision.limit();
    }

    private LimiterMeters meters(RateLimiter limiter) {
        LimiterMeters found = byLimiter.get(limiter.name());
        Algorithm algorithm = limiter.algorithm();
        if (found != null && found.algorithm == algorithm) {
            return found;
        }
        return byLimiter.compute(limiter.name(), (name, existing) -> (existing != null && existing.algorithm == algorithm) ? existing
                : new LimiterMeters(name, algorithm));
    }

    /** The meters of one concurrency limit; registered on first use. */
    private final class ConcurrencyMeters {

        private final String name;

        private final Counter[] counters = new Counter[OUTCOMES.length * SOURCES.length];

        private final Timer[] waits = new Timer[OUTCOMES.length];

        ConcurrencyMeters(String name) {
            this.name = name;
        }

        Counter counter(Outcome outcome, DecisionSource source) {
            int index = outcome.ordinal() * SOURCES.length + source.ordinal();
            Counter counter = counters[index];
            if (counter == null) {
                counter = Counter.builder(CONCURRENCY_DECISIONS)
                    .description("Attempts to take a slot of a concurrency limit, by what became of them and what decided")
                    .tags("limiter", name, "outcome", outcome.tag(), "backend", source.tag())
                    .register(meters);
                counters[index] = counter;
            }
            return counter;
        }

        Timer waited(Outcome outcome) {
            Timer timer = waits[outcome.ordinal()];
            if (timer == null) {
                timer = Timer.builder(CONCURRENCY_WAIT)
                    .description("Time a call spent taking a slot of a concurrency limit, waiting for one included")
                    .tags("limiter", name, "outcome", outcome.tag())
                    .register(meters);
                waits[outcome.ordinal()] = timer;
            }
            return timer;
        }
    }

    /** The meters of one limiter; counters are registered on first use. */
    private final class LimiterMeters {

        private final String name;

        private final Algorithm algorithm;

        private final Counter[] counters = new Counter[OUTCOMES.length * SOURCES.length];

        private final Counter error;

        /** Registered with the limiter's first decision, so that its rate reads 0 rather than nothing until a key nears the limit. */
        private final Counter nearLimit;

        private final Timer redis;

        LimiterMeters(String name, Algorithm algorithm) {
            this.name = name;
            this.algorithm = algorithm;
            this.error = counter(Outcome.ERROR, "none");
            this.nearLimit = Counter.builder(NEAR_LIMIT)
                .description("Allowed calls that left less than 20% of the limit")
                .tags("limiter", name, "algorithm", algorithm.configName())
                .register(meters);
            this.redis = Timer.builder(REDIS_DURATION)
                .description("Round trip of one rate limit decision's script to Redis")
                .tags("limiter", name, "algorithm", algorithm.configName())
                .register(meters);
        }

        Counter counter(Outcome outcome, DecisionSource source) {
            int index = outcome.ordinal() * SOURCES.length + source.ordinal();
            Counter counter = counters[index];
            if (counter == null) {
                // Registering twice returns the same counter: a race only repeats the lookup.
                counter = counter(outcome, source.tag());
                counters[index] = counter;
            }
            return counter;
        }

        private Counter counter(Outcome outcome, String backend) {
            return Counter.builder(DECISIONS)
                .description("Rate limited calls, by what became of them and what decided")
                .tags("limiter", name, "algorithm", algorithm.configName(), "outcome", outcome.tag(), "backend", backend)
                .register(meters);
        }
    }
}
