package dev.limiter.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterRetuner;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Micrometer metrics and observations of decisions, through the auto-configured stack on real Redis. */
@RedisTest
class LimiterMetricsTests {

    private final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterMetricsAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(ServiceConfiguration.class);

    static double decisions(MeterRegistry meters, String limiter, String outcome, String backend) {
        Counter counter = meters.find(MicrometerDecisionListener.DECISIONS)
            .tags("limiter", limiter, "outcome", outcome, "backend", backend)
            .counter();
        return (counter != null) ? counter.count() : 0;
    }

    static double allDecisions(MeterRegistry meters) {
        return meters.find(MicrometerDecisionListener.DECISIONS).counters().stream().mapToDouble(Counter::count).sum();
    }

    @Test
    void aLimiterRetunedToAnotherAlgorithmCountsUnderItsNewTag() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Service service = context.getBean(Service.class);
            service.strict("alice");
            context.getBean(LimiterRetuner.class).retune("strict", Map.of("algorithm", "gcra"));
            service.strict("alice");
            assertThat(meters.find(MicrometerDecisionListener.DECISIONS).tags("limiter", "strict", "outcome", "allowed").counters())
                .extracting((counter) -> counter.getId().getTag("algorithm") + "=" + counter.count())
                .containsExactlyInAnyOrder("fixed-window=1.0", "gcra=1.0");
        });
    }

    @Test
    void everyCallIsCountedOnceByWhatBecameOfIt() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Service service = context.getBean(Service.class);
            service.strict("alice");
            service.strict("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.strict("alice"));
            service.shadowed("alice");
            service.shadowed("alice");
            assertThat(service.withFallback("alice")).isEqualTo("limited");
            assertThat(service.withFallback("alice")).isEqualTo("fallback");
            assertThatIllegalArgumentException().isThrownBy(() -> service.costly("alice", -1));

            assertThat(decisions(meters, "strict", "allowed", "redis")).isEqualTo(2);
            assertThat(decisions(meters, "strict", "rejected", "redis")).isEqualTo(1);
            assertThat(decisions(meters, "shadowed", "allowed", "redis")).isEqualTo(1);
            assertThat(decisions(meters, "shadowed", "shadow_rejected", "redis")).isEqualTo(1);
            assertThat(decisions(meters, "fallback", "allowed", "redis")).isEqualTo(1);
            assertThat(decisions(meters, "fallback", "fallback", "redis")).isEqualTo(1);
            assertThat(decisions(meters, "costly", "error", "none")).isEqualTo(1);
            assertThat(allDecisions(meters)).isEqualTo(8);
        });
    }

    @Test
    void aCallThatCouldNotBeSettledIsCountedAndStillAnswers() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Service service = context.getBean(Service.class);
            assertThat(service.settled("alice", 3)).isEqualTo("3");
            assertThat(meters.find(MicrometerDecisionListener.SETTLE_FAILURES).counter()).isNull();
            // The settle expression fails on a negative length: the call answers all the same.
            assertThat(service.settled("alice", -1)).isEqualTo("-1");
            assertThat(meters.find(MicrometerDecisionListener.SETTLE_FAILURES).tags("limiter", "settled", "algorithm", "fixed-window")
                .counter().count()).isEqualTo(1);
        });
    }

    @Test
    void directCallsThroughTheRegistryAreCountedToo() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            registry.get("strict").tryAcquire("bob");
            context.getBean(Service.class).strict("bob");
            assertThat(registry.get("strict").tryAcquire("bob").rejected()).isTrue();
            assertThat(decisions(meters, "strict", "allowed", "redis")).isEqualTo(2);
            assertThat(decisions(meters, "strict", "rejected", "redis")).isEqualTo(1);
            assertThat(allDecisions(meters)).isEqualTo(3);
        });
    }

    @Test
    void asynchronousCallsAreCountedOnceToo() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Service service = context.getBean(Service.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            assertThat(service.reactive("ivan").block()).isEqualTo("ok");
            assertThat(service.staged("ivan").join()).isEqualTo("ok");
            assertThat(registry.get("async").tryAcquireAsync("ivan").toCompletableFuture().join().rejected()).isTrue();
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.reactive("ivan").block());
            assertThat(decisions(meters, "async", "allowed", "redis")).isEqualTo(2);
            assertThat(decisions(meters, "async", "rejected", "redis")).isEqualTo(2);
            assertThat(allDecisions(meters)).isEqualTo(4);
            assertThat(meters.get(MicrometerDecisionListener.REDIS_DURATION).tag("limiter", "async").timer().count()).isEqualTo(4);
        });
    }

    @Test
    void metersAreTaggedWithLimiterAlgorithmOutcomeAndBackendButNeverTheKey() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Service service = context.getBean(Service.class);
            for (int i = 0; i < 20; i++) {
                service.strict("user-" + i);
            }
            List<Meter> limiterMeters = meters.getMeters().stream().filter((meter) -> meter.getId().getName().startsWith("limiter.")).toList();
            assertThat(limiterMeters).isNotEmpty();
            assertThat(limiterMeters).allSatisfy((meter) -> assertThat(meter.getId().getTags()).extracting(Tag::getValue)
                .noneMatch((value) -> value.startsWith("user-")));
            assertThat(meters.get(MicrometerDecisionListener.DECISIONS).tag("limiter", "strict").counter().getId().getTags())
                .extracting(Tag::getKey)
                .containsExactlyInAnyOrder("limiter", "algorithm", "outcome", "backend");
            assertThat(meters.get(MicrometerDecisionListener.DECISIONS).tag("limiter", "strict").counter().getId().getTag("algorithm"))
                .isEqualTo("fixed-window");
        });
    }

    @Test
    void allowedCallsLeavingLessThanAFifthOfTheLimitAreCountedAsNearTheLimit() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            RateLimiter ten = registry.register("ten", Algorithm.FIXED_WINDOW, LimitSpec.of(10, Duration.ofMinutes(1)));
            for (int call = 1; call <= 8; call++) {
                assertThat(ten.tryAcquire("kim").remaining()).isEqualTo(10 - call);
                assertThat(nearLimit(meters, "ten")).as("remaining %d of 10", 10 - call).isZero();
            }
            // Remaining 2 of 10 is 20%, not less: only 1 and 0 are near the limit.
            assertThat(ten.tryAcquire("kim").remaining()).isEqualTo(1);
            assertThat(nearLimit(meters, "ten")).isEqualTo(1);
            assertThat(ten.tryAcquire("kim").remaining()).isZero();
            assertThat(nearLimit(meters, "ten")).isEqualTo(2);
            assertThat(ten.tryAcquire("kim").allowed()).as("a rejection is not counted").isFalse();
            assertThat(nearLimit(meters, "ten")).isEqualTo(2);
            // The registry's metered limiter resets through the limiter inside.
            assertThat(ten.reset("kim")).isTrue();
            assertThat(ten.tryAcquire("kim").remaining()).isEqualTo(9);

            // A limit of 7: 20% is 1.4, so remaining 1 is near it (5 < 7) and remaining 2 is not (10 >= 7).
            RateLimiter seven = registry.register("seven", Algorithm.TOKEN_BUCKET, LimitSpec.of(7, Duration.ofMinutes(1)));
            assertThat(seven.tryAcquire("kim", 5).remaining()).isEqualTo(2);
            assertThat(nearLimit(meters, "seven")).isZero();
            assertThat(seven.tryAcquire("kim").remaining()).isEqualTo(1);
            assertThat(nearLimit(meters, "seven")).isEqualTo(1);
            assertThat(meters.get(MicrometerDecisionListener.NEAR_LIMIT).tag("limiter", "seven").counter().getId().getTags())
                .extracting(Tag::getKey)
                .containsExactlyInAnyOrder("limiter", "algorithm");

            // Annotated calls too; shadow rejections are not allowed calls.
            Service service = context.getBean(Service.class);
            service.strict("kim");
            assertThat(nearLimit(meters, "strict")).as("1 of 2 left").isZero();
            service.strict("kim");
            assertThat(nearLimit(meters, "strict")).isEqualTo(1);
            service.shadowed("kim");
            service.shadowed("kim");
            assertThat(nearLimit(meters, "shadowed")).isEqualTo(1);
        });
    }

    static double nearLimit(MeterRegistry meters, String limiter) {
        return meters.get(MicrometerDecisionListener.NEAR_LIMIT).tag("limiter", limiter).counter().count();
    }

    @Test
    void theRedisRoundTripIsTimedPerDecision() {
        this.contextRunner.run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Service service = context.getBean(Service.class);
            service.strict("carol");
            service.strict("carol");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.strict("carol"));
            var timer = meters.get(MicrometerDecisionListener.REDIS_DURATION).tag("limiter", "strict").timer();
            assertThat(timer.count()).isEqualTo(3);
            assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(meters.get(LimiterMetricsAutoConfiguration.FAILURE_POLICY_ACTIVE).gauge().value()).isZero();
        });
    }

    @Test
    void theLocalDenyCacheIsItsOwnBackend() {
        this.contextRunner.withPropertyValues("limiter.local-deny-cache.enabled=true").run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Service service = context.getBean(Service.class);
            service.strict("dave");
            service.strict("dave");
            for (int i = 0; i < 5; i++) {
                assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.strict("dave"));
            }
            assertThat(decisions(meters, "strict", "rejected", "redis")).isEqualTo(1);
            assertThat(decisions(meters, "strict", "rejected", "local-deny-cache")).isEqualTo(4);
            assertThat(meters.get(MicrometerDecisionListener.REDIS_DURATION).tag("limiter", "strict").timer().count()).isEqualTo(3);
        });
    }

    @Test
    void leasedPermitsAreTheirOwnBackendAndNoRoundTrip() {
        this.contextRunner.withPropertyValues("limiter.limiters.costly.lease.permits=3", "limiter.limiters.costly.lease.ttl=10s")
            .run((context) -> {
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                Service service = context.getBean(Service.class);
                for (int i = 0; i < 5; i++) {
                    service.costly("gina", 1);
                }
                // Cold, then hot: the second call leases 3, which the next three are handed.
                assertThat(decisions(meters, "costly", "allowed", "redis")).isEqualTo(2);
                assertThat(decisions(meters, "costly", "allowed", "lease")).isEqualTo(3);
                assertThat(meters.get(MicrometerDecisionListener.REDIS_DURATION).tag("limiter", "costly").timer().count()).isEqualTo(2);
            });
    }

    @Test
    void theMemoryBackendIsTaggedMemory() {
        this.contextRunner.withPropertyValues("limiter.backend=memory").run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            context.getBean(Service.class).strict("erin");
            assertThat(decisions(meters, "strict", "allowed", "memory")).isEqualTo(1);
            assertThat(meters.find(LimiterMetricsAutoConfiguration.FAILURE_POLICY_ACTIVE).gauge()).isNull();
        });
    }

    @Test
    void whileRedisFailsDecisionsAreLocalFallbackAndTheGaugeSaysSo() {
        try (TestRedis redis = TestRedis.start()) {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
            this.contextRunner
                .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=metrics-" + UUID.randomUUID(),
                        "limiter.redis.probe-interval=50ms")
                .run((context) -> {
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    Service service = context.getBean(Service.class);
                    service.strict("frank");
                    redis.kill();
                    RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
                    // Out once the client's attempt to reconnect is refused and a call fails after it;
                    // a call that fails before is rejected (it may have run in Redis).
                    long out = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (factory.isRedisAvailable() && System.nanoTime() < out) {
                        try {
                            service.strict("someone");
                        }
                        catch (RateLimitExceededException ex) {
                            // Rejected while Redis still counted as in use.
                        }
                        Thread.sleep(5);
                    }
                    double localBefore = decisions(meters, "strict", "allowed", "local-fallback");
                    service.strict("frank");
                    assertThat(decisions(meters, "strict", "allowed", "redis")).isEqualTo(1);
                    assertThat(decisions(meters, "strict", "allowed", "local-fallback")).isEqualTo(localBefore + 1);
                    assertThat(meters.get(LimiterMetricsAutoConfiguration.FAILURE_POLICY_ACTIVE).gauge().value()).isEqualTo(1);
                    redis.restart();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!factory.isRedisAvailable() && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    assertThat(meters.get(LimiterMetricsAutoConfiguration.FAILURE_POLICY_ACTIVE).gauge().value()).isZero();
                });
        }
    }

    @Test
    void eachDecisionIsObserved() {
        List<Observation.Context> observed = new CopyOnWriteArrayList<>();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                observed.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        this.contextRunner.withBean(ObservationRegistry.class, () -> observations).run((context) -> {
            Service service = context.getBean(Service.class);
            service.strict("grace");
            service.strict("grace");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.strict("grace"));
            assertThat(observed).hasSize(3).allSatisfy((stopped) -> {
                assertThat(stopped.getName()).isEqualTo(MicrometerDecisionListener.OBSERVATION);
                assertThat(stopped.getContextualName()).isEqualTo("rate limit strict");
                assertThat(stopped.getLowCardinalityKeyValue("limiter").getValue()).isEqualTo("strict");
                assertThat(stopped.getLowCardinalityKeyValue("backend").getValue()).isEqualTo("redis");
            });
            assertThat(observed).extracting((stopped) -> stopped.getLowCardinalityKeyValue("allowed").getValue())
                .containsExactly("true", "true", "false");
        });
    }

    @Test
    void aDecisionMadeInMemoryIsCountedButNotObserved() {
        List<Observation.Context> observed = new CopyOnWriteArrayList<>();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                observed.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        this.contextRunner.withBean(ObservationRegistry.class, () -> observations).withPropertyValues("limiter.backend=memory").run((context) -> {
            Service service = context.getBean(Service.class);
            service.strict("grace");
            service.strict("grace");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.strict("grace"));
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(decisions(meters, "strict", "allowed", "memory")).isEqualTo(2);
            assertThat(decisions(meters, "strict", "rejected", "memory")).isEqualTo(1);
            assertThat(observed).isEmpty();
        });
    }

    @Test
    void withoutAMeterRegistryNothingIsRecordedAndCallsAreLimitedAsUsual() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class,
                    LimiterMetricsAutoConfiguration.class))
            .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
            // As in the other tests: on Redis' clock a minute could end between the calls, and the third pass.
            .withBean(VirtualClock.class, VirtualClock::new)
            .withUserConfiguration(ServiceConfiguration.class)
            .run((context) -> {
                assertThat(context).doesNotHaveBean(MicrometerDecisionListener.class);
                Service service = context.getBean(Service.class);
                service.strict("heidi");
                service.strict("heidi");
                assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.strict("heidi"));
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        Service service() {
            return new Service();
        }

    }

    static class Service {

        @RateLimited(name = "strict", key = "#user", algorithm = dev.limiter.Algorithm.FIXED_WINDOW, limit = 2, window = "1m")
        public void strict(String user) {
        }

        @RateLimited(name = "shadowed", key = "#user", limit = 1, window = "1m", shadow = true)
        public void shadowed(String user) {
        }

        @RateLimited(name = "fallback", key = "#user", limit = 1, window = "1m", fallbackMethod = "tooMany")
        public String withFallback(String user) {
            return "limited";
        }

        String tooMany(String user, RateLimitExceededException ex) {
            return "fallback";
        }

        @RateLimited(name = "async", key = "#user", algorithm = dev.limiter.Algorithm.FIXED_WINDOW, limit = 2, window = "1m")
        public reactor.core.publisher.Mono<String> reactive(String user) {
            return reactor.core.publisher.Mono.just("ok");
        }

        @RateLimited(name = "async", key = "#user", algorithm = dev.limiter.Algorithm.FIXED_WINDOW, limit = 2, window = "1m")
        public java.util.concurrent.CompletableFuture<String> staged(String user) {
            return java.util.concurrent.CompletableFuture.completedFuture("ok");
        }

        @RateLimited(name = "costly", key = "#user", cost = "#cost", limit = 10, window = "1m")
        public void costly(String user, int cost) {
        }

        @RateLimited(name = "settled", key = "#user", cost = "2", settle = "T(Long).parseLong(#result) >= 0 ? T(Long).parseLong(#result) : null",
                algorithm = dev.limiter.Algorithm.FIXED_WINDOW, limit = 10, window = "1m")
        public String settled(String user, long used) {
            return Long.toString(used);
        }

    }

}
