package dev.limiter.outgoing.internal;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Metrics of outgoing calls: {@code limiter.outgoing.wait}, a timer of the time each call waited for a
 * hold and its permit (tags {@code limiter}, and {@code outcome} {@code proceeded} or {@code rejected}),
 * and {@code limiter.outgoing.holds}, a counter of the holds upstreams asked for (tag {@code limiter}).
 */
public final class MicrometerOutgoingObserver implements OutgoingObserver {

    private final MeterRegistry registry;

    public MicrometerOutgoingObserver(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void waited(String limiter, Duration waited, boolean proceeded) {
        Timer.builder("limiter.outgoing.wait")
            .description("Time outgoing calls waited for an upstream's hold and their permit")
            .tag("limiter", limiter)
            .tag("outcome", proceeded ? "proceeded" : "rejected")
            .register(registry)
            .record(waited);
    }

    @Override
    public void held(String limiter, Duration hold) {
        Counter.builder("limiter.outgoing.holds")
            .description("Holds upstreams asked for, with 429 or 503 and Retry-After, or RateLimit fields with nothing remaining")
            .tag("limiter", limiter)
            .register(registry)
            .increment();
    }
}
