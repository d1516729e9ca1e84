package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.actuate.LimitDescriptor;
import dev.limiter.autoconfigure.actuate.LimiterActuatorAutoConfiguration;
import dev.limiter.autoconfigure.actuate.LimiterDescriptor;
import dev.limiter.autoconfigure.actuate.LimitersEndpoint;
import dev.limiter.autoconfigure.actuate.PlanDescriptor;
import dev.limiter.autoconfigure.actuate.PlanQuotasDescriptor;
import dev.limiter.autoconfigure.actuate.QuotaDescriptor;
import dev.limiter.autoconfigure.actuate.ResetDescriptor;
import dev.limiter.autoconfigure.metrics.LimiterMetricsAutoConfiguration;
import dev.limiter.spring.PlanResolver;
import dev.limiter.spring.RateLimited;
import dev.limiter.spring.UnknownPlanException;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Plans on real Redis (and in memory): the plan of each call is picked by an expression, a property
 * or a PlanResolver bean, each plan counts apart with its own limits, an unknown plan fails the call
 * and is counted, and unlimited plans and keys are never limited and leave nothing in Redis.
 */
@RedisTest
class PlansTests {

    private final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterMetricsAutoConfiguration.class, EndpointAutoConfiguration.class, LimiterActuatorAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withPropertyValues("limiter.limiters.api.algorithm=fixed-window", "limiter.limiters.api.plans.free.limit=2",
                "limiter.limiters.api.plans.free.window=1m", "limiter.limiters.api.plans.trial.limit=2",
                "limiter.limiters.api.plans.trial.window=1m", "limiter.limiters.api.plans.pro.limits[0].limit=3",
                "limiter.limiters.api.plans.pro.limits[0].window=1s", "limiter.limiters.api.plans.pro.limits[1].limit=5",
                "limiter.limiters.api.plans.pro.limits[1].window=1m", "limiter.limiters.api.plans.internal.unlimited=true",
                "limiter.limiters.api.unlimited-keys=ops, monitor")
        // Time stands still: what a test takes stays taken.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(ServiceConfiguration.class);

    @Test
    void theExpressionPicksThePlanOfEachCallAndEachPlanHasItsOwnLimits() {
        this.contextRunner.run((context) -> {
            Api api = context.getBean(Api.class);
            api.call("alice", "free");
            api.call("alice", "free");
            RateLimitExceededException rejected = rejected(() -> api.call("alice", "free"));
            assertThat(rejected.getPlan()).isEqualTo("free");
            assertThat(rejected.getDecision().limit()).isEqualTo(2);
            // Moving to pro starts pro's counting afresh, with pro's limits: 3 a second.
            for (int i = 0; i < 3; i++) {
                api.call("alice", "pro");
            }
            RateLimitExceededException proRejected = rejected(() -> api.call("alice", "pro"));
            assertThat(proRejected.getPlan()).isEqualTo("pro");
            assertThat(proRejected.getDecision().violatedLimit().limit()).isEqualTo(3);
            // Trial has free's limits, yet counts apart from it; bob's keys are bob's.
            api.call("alice", "trial");
            api.call("alice", "trial");
            rejected(() -> api.call("alice", "trial"));
            api.call("bob", "free");
            rejected(() -> api.call("alice", "free"));
        });
    }

    @Test
    void aPlanResolverBeanPicksThePlanFromTheKey() {
        List<String> asked = new CopyOnWriteArrayList<>();
        Map<String, String> accounts = Map.of("alice", "free", "carol", "pro");
        this.contextRunner.withBean("accountPlans", PlanResolver.class, () -> (call, key) -> {
            asked.add(key + " " + call.arguments()[0] + " " + call.method().getName());
            return accounts.get(key);
        }).withPropertyValues("limiter.limiters.api.plan-resolver=accountPlans", "limiter.limiters.api.default-plan=trial").run((context) -> {
            Api api = context.getBean(Api.class);
            // The property overrides the annotation's expression: the second argument no longer matters.
            api.call("alice", "pro");
            api.call("alice", "pro");
            assertThat(rejected(() -> api.call("alice", "pro")).getPlan()).isEqualTo("free");
            for (int i = 0; i < 3; i++) {
                api.call("carol", "free");
            }
            assertThat(rejected(() -> api.call("carol", "free")).getPlan()).isEqualTo("pro");
            // A key the resolver knows nothing of gets the default plan.
            api.call("dave", "pro");
            api.call("dave", "pro");
            assertThat(rejected(() -> api.call("dave", "pro")).getPlan()).isEqualTo("trial");
            assertThat(asked).startsWith("alice alice call");
        });
    }

    @Test
    void aPlanPropertyOverridesTheAnnotationAndNullTakesTheDefaultPlan() {
        this.contextRunner.withPropertyValues("limiter.limiters.api.plan=#user == 'alice' ? 'pro' : null",
                "limiter.limiters.api.default-plan=free").run((context) -> {
                    Api api = context.getBean(Api.class);
                    for (int i = 0; i < 3; i++) {
                        api.call("alice", "free");
                    }
                    assertThat(rejected(() -> api.call("alice", "free")).getPlan()).isEqualTo("pro");
                    api.call("bob", "pro");
                    api.call("bob", "pro");
                    assertThat(rejected(() -> api.call("bob", "pro")).getPlan()).isEqualTo("free");
                });
    }

    @Test
    void anUnknownPlanFailsTheCallNamingTheLimiterThePlanAndThePlansAndIsCountedAsAnError() {
        this.contextRunner.run((context) -> {
            Api api = context.getBean(Api.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThatExceptionOfType(UnknownPlanException.class).isThrownBy(() -> api.call("alice", "gold")).satisfies((ex) -> {
                assertThat(ex.getLimiterName()).isEqualTo("api");
                assertThat(ex.getPlan()).isEqualTo("gold");
                assertThat(ex.getPlans()).containsExactlyInAnyOrder("free", "trial", "pro", "internal");
                assertThat(ex.getMessage()).contains("'api'", "'gold'", "[free, internal, pro, trial]", "#plan",
                        "@RateLimited(plan) on Api.call(String, String)");
            });
            // No default plan: a null plan is none of them either.
            assertThatExceptionOfType(UnknownPlanException.class).isThrownBy(() -> api.call("alice", null))
                .satisfies((ex) -> assertThat(ex.getPlan()).isNull())
                .withMessageContaining("picked no plan (null)");
            assertThat(decisions(meters, "error", "none")).isEqualTo(2);
            assertThat(decisions(meters, "allowed", "redis")).isZero();
            // The keys were not charged under any plan.
            api.call("alice", "free");
            api.call("alice", "free");
        });
    }

    @Test
    void unlimitedPlansAndKeysAreNeverLimitedAreCountedAndLeaveNothingInRedis() {
        this.contextRunner.run((context) -> {
            Api api = context.getBean(Api.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            for (int i = 0; i < 20; i++) {
                api.call("alice", "internal");
                api.call("ops", "free");
                // An unlimited key needs no plan: an unknown one does not fail it.
                api.call("monitor", "gold");
            }
            assertThat(decisions(meters, "allowed", "unlimited")).isEqualTo(60);
            assertThat(meters.find("limiter.near_limit").counter().count()).isZero();
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            assertThat(keysUnder(redis, this.keyPrefix + ":{api")).as("no limiter state written").isEmpty();
            // Limited plans still limit: alice's free plan is untouched by her unlimited calls.
            api.call("alice", "free");
            api.call("alice", "free");
            rejected(() -> api.call("alice", "free"));
            assertThat(keysUnder(redis, this.keyPrefix + ":{api")).singleElement().asString()
                .startsWith(this.keyPrefix + ":{api/free:alice}:fw2:");
        });
    }

    @Test
    void unlimitedKeysOfALimiterWithoutPlansAreNeverLimited() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.unlimited-keys=ops").run((context) -> {
            Api api = context.getBean(Api.class);
            for (int i = 0; i < 5; i++) {
                api.order("ops");
            }
            api.order("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> api.order("alice"))
                .satisfies((ex) -> assertThat(ex.getPlan()).isNull());
            assertThat(keysUnder(context.getBean(StringRedisTemplate.class), this.keyPrefix + ":{orders:ops}")).isEmpty();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { "redis", "memory" })
    void plansCountApartOnEitherBackend(String backend) {
        this.contextRunner.withPropertyValues("limiter.backend=" + backend).run((context) -> {
            Api api = context.getBean(Api.class);
            api.call("alice", "free");
            api.call("alice", "free");
            rejected(() -> api.call("alice", "free"));
            api.call("alice", "trial");
            api.call("alice", "trial");
            rejected(() -> api.call("alice", "trial"));
            for (int i = 0; i < 10; i++) {
                api.call("alice", "internal");
            }
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            assertThat(registry.plans("api")).containsOnlyKeys("free", "pro", "trial");
            assertThat(registry.find("api")).as("no limiter of its own").isEmpty();
        });
    }

    @Test
    void theEndpointShowsEachPlansLimitsAndReadsAndResetsKeysPerPlan() {
        this.contextRunner.withPropertyValues("limiter.limiters.api.default-plan=free", "management.endpoints.web.exposure.include=limiters")
            .run((context) -> {
                LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
                Api api = context.getBean(Api.class);
                LimiterDescriptor described = endpoint.limiters().limiters().get("api");
                assertThat(described.algorithm()).isEqualTo("fixed-window");
                assertThat(described.limits()).isEmpty();
                assertThat(described.plans()).containsOnlyKeys("free", "trial", "pro", "internal");
                assertThat(described.plans().get("free"))
                    .isEqualTo(new PlanDescriptor(List.of(new LimitDescriptor(2, "PT1M", null)), false));
                assertThat(described.plans().get("pro").limits()).extracting(LimitDescriptor::limit).containsExactly(3L, 5L);
                assertThat(described.plans().get("internal")).isEqualTo(new PlanDescriptor(List.of(), true));
                assertThat(described.defaultPlan()).isEqualTo("free");
                assertThat(described.unlimitedKeys()).isEqualTo(2);
                assertThat(described.usedBy()).singleElement().asString().endsWith("Api.call(String, String)");
                assertThat(described.sources()).containsEntry("plans", "limiter.limiters.api.plans")
                    .containsEntry("algorithm", "limiter.limiters.api.algorithm")
                    .containsEntry("plan", "@RateLimited(plan) on Api.call(String, String)")
                    .containsEntry("default-plan", "limiter.limiters.api.default-plan");

                api.call("alice", "free");
                api.call("alice", "pro");
                assertThat(quotaOf(endpoint, "api", "free", "alice").remaining()).isEqualTo(1);
                assertThat(quotaOf(endpoint, "api", "pro", "alice").remaining()).isEqualTo(2);
                assertThat(quotaOf(endpoint, "api", "gold", "alice")).isNull();
                PlanQuotasDescriptor everyPlan = (PlanQuotasDescriptor) endpoint.quota("api", "alice");
                assertThat(everyPlan.plans()).containsOnlyKeys("free", "pro", "trial");
                assertThat(everyPlan.plans().get("free").remaining()).isEqualTo(1);
                assertThat(everyPlan.plans().get("pro").remaining()).isEqualTo(2);
                assertThat(everyPlan.plans().get("trial").remaining()).isEqualTo(2);
                assertThat(everyPlan.unlimitedPlans()).containsExactly("internal");
                assertThat(endpoint.reset("api", "pro", "alice").getBody())
                    .isEqualTo(new ResetDescriptor("api", "pro", "alice", true, true, null));
                assertThat(quotaOf(endpoint, "api", "free", "alice").remaining()).isEqualTo(1);
                api.call("alice", "pro");
                assertThat(endpoint.reset("api", "alice").getBody())
                    .isEqualTo(new ResetDescriptor("api", null, "alice", true, true, null));
                assertThat(quotaOf(endpoint, "api", "free", "alice").remaining()).isEqualTo(2);
                assertThat(quotaOf(endpoint, "api", "pro", "alice").remaining()).isEqualTo(3);
            });
    }

    private static RateLimitExceededException rejected(Runnable call) {
        RateLimitExceededException[] thrown = new RateLimitExceededException[1];
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(call::run).satisfies((ex) -> thrown[0] = ex);
        assertThat(thrown[0].getLimiterName()).isEqualTo("api");
        return thrown[0];
    }

    private static double decisions(MeterRegistry meters, String outcome, String backend) {
        Counter counter = meters.find("limiter.decisions").tags("limiter", "api", "algorithm", "fixed-window", "outcome", outcome,
                "backend", backend).counter();
        return (counter != null) ? counter.count() : 0;
    }

    /** Every key under {@code prefix}, found with SCAN (never KEYS). */
    static List<String> keysUnder(StringRedisTemplate redis, String prefix) {
        List<String> keys = new CopyOnWriteArrayList<>();
        try (Cursor<String> cursor = redis.scan(ScanOptions.scanOptions().match(prefix + "*").count(1000).build())) {
            cursor.forEachRemaining(keys::add);
        }
        return keys;
    }

    /** The quota of a key of a limiter without plans, or of a key in one plan: what {@code quota} answers then. */
    private static QuotaDescriptor quotaOf(LimitersEndpoint endpoint, String name, String... path) {
        return (QuotaDescriptor) endpoint.quota(name, path);
    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        Api api() {
            return new Api();
        }
    }

    static class Api {

        @RateLimited(name = "api", key = "#user", plan = "#plan")
        public void call(String user, String plan) {
        }

        @RateLimited(name = "orders", key = "#user", limit = 1, window = "1m")
        public void order(String user) {
        }
    }
}
