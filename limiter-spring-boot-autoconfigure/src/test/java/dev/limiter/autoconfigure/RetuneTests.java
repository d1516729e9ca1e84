package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.RetunePolicy;
import dev.limiter.Retuning;
import dev.limiter.autoconfigure.actuate.LimitDescriptor;
import dev.limiter.autoconfigure.actuate.LimiterActuatorAutoConfiguration;
import dev.limiter.autoconfigure.actuate.LimiterDescriptor;
import dev.limiter.autoconfigure.actuate.LimitersEndpoint;
import dev.limiter.autoconfigure.actuate.QuotaDescriptor;
import dev.limiter.autoconfigure.actuate.RetuneDescriptor;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.autoconfigure.ConfigurationPropertiesRebinderAutoConfiguration;
import org.springframework.cloud.context.environment.EnvironmentManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Retuning while the application runs, on real Redis: through {@link LimiterRetuner}'s Java methods,
 * the {@code limiters} endpoint's write operation, and Spring Cloud's {@code EnvironmentChangeEvent}.
 * An annotated method decides by the new limits from its next call; a value startup would refuse is
 * refused with startup's message, and the limits in force stay, all of them. The clock stands still:
 * only a retune changes what a key may take.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class RetuneTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterActuatorAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues("management.endpoints.web.exposure.include=limiters", "limiter.limiters.orders.algorithm=fixed-window", "limiter.limiters.orders.limit=10",
                "limiter.limiters.orders.window=10s", "limiter.limiters.orders.on-retune=keep",
                "limiter.limiters.reports.algorithm=fixed-window", "limiter.limiters.reports.limit=10",
                "limiter.limiters.reports.window=10s")
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(ServiceConfiguration.class);

    @Test
    void theJavaMethodRetunesAnAnnotatedMethodAtOnceKeepingOrResettingKeys() {
        this.contextRunner.run((context) -> {
            Service service = context.getBean(Service.class);
            LimiterRetuner retuner = context.getBean(LimiterRetuner.class);
            take(4, () -> service.order("alice"));
            take(4, () -> service.report("alice"));

            Retuning orders = retuner.retune("orders", Map.of("limit", 20));
            Retuning reports = retuner.retune("reports", Map.of("limit", "20"));

            assertThat(orders.stateKept()).isTrue();
            assertThat(reports.stateKept()).isFalse();
            assertThat(context.getBean(RateLimiterRegistry.class).get("orders").limits()).containsExactly(LimitSpec.of(20, Duration.ofSeconds(10)));
            assertThat(take(100, () -> service.order("alice"))).as("keep: 4 of 20 used").isEqualTo(16);
            assertThat(take(100, () -> service.report("alice"))).as("reset: 20 left").isEqualTo(20);
            assertThat(context.getBean(LimiterDefinitions.class).sources("orders")).containsEntry("limit", "limiter.limiters.orders.limit")
                .containsEntry("on-retune", "limiter.limiters.orders.on-retune");
            assertThat(context.getBean(LimiterDefinitions.class).sources("reports")).containsEntry("on-retune", "default");
            assertThat(context.getEnvironment().getProperty("limiter.limiters.orders.limit")).isEqualTo("20");
        });
    }

    @Test
    void aValueStartupRefusesIsRefusedWithItsMessageAndTheLimitsInForceStay() {
        LimiterConfigurationException[] atStartup = new LimiterConfigurationException[1];
        this.contextRunner.withPropertyValues("limiter.limiters.orders.burst=20")
            .run((context) -> atStartup[0] = (LimiterConfigurationException) NestedExceptionUtils
                .getRootCause(context.getStartupFailure()));
        this.contextRunner.run((context) -> {
            Service service = context.getBean(Service.class);
            LimiterRetuner retuner = context.getBean(LimiterRetuner.class);
            RateLimiter orders = context.getBean(RateLimiterRegistry.class).get("orders");

            assertThatExceptionOfType(LimiterConfigurationException.class)
                .isThrownBy(() -> retuner.retune("orders", Map.of("burst", 20)))
                .satisfies((ex) -> {
                    assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.burst");
                    assertThat(ex.getMessage()).isEqualTo(atStartup[0].getMessage());
                });
            assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(() -> retuner.retune("orders", Map.of("limit", "ten")))
                .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.limit"));
            assertThatExceptionOfType(LimiterConfigurationException.class)
                .isThrownBy(() -> retuner.retune("orders", Map.of("window", "10 seconds")))
                .satisfies((ex) -> {
                    assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.window");
                    assertThat(ex.getValue()).isEqualTo("\"10 seconds\"");
                    assertThat(ex.getAction()).contains("10s", "1m", "PT10S");
                });
            assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(() -> retuner.retune("orders", Map.of("shadow", true)))
                .satisfies((ex) -> assertThat(ex.getProblem()).contains("cannot change while the application runs"));

            assertThat(orders.limits()).containsExactly(LimitSpec.of(10, Duration.ofSeconds(10)));
            assertThat(context.getEnvironment().getProperty("limiter.limiters.orders.limit")).as("the refused values are taken back")
                .isEqualTo("10");
            assertThat(take(100, () -> service.order("bob"))).isEqualTo(10);
        });
    }

    /** A lease is retuned like any other value, checked as at startup, and taken off with empty values. */
    @Test
    void aLeaseIsRetunedCheckedAsAtStartup() {
        this.contextRunner.run((context) -> {
            LimiterRetuner retuner = context.getBean(LimiterRetuner.class);
            RateLimiter orders = context.getBean(RateLimiterRegistry.class).get("orders");

            assertThatExceptionOfType(LimiterConfigurationException.class)
                .isThrownBy(() -> retuner.retune("orders", Map.of("lease", Map.of("permits", 5, "ttl", "100ms"))))
                .satisfies((ex) -> {
                    assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease");
                    assertThat(ex.getProblem()).contains("not to fixed-window");
                });
            assertThat(orders.config().lease()).isNull();
            assertThatExceptionOfType(LimiterConfigurationException.class)
                .isThrownBy(() -> retuner.retune("orders", Map.of("algorithm", "gcra", "lease", Map.of("permits", 0, "ttl", "100ms"))))
                .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease.permits"));
            assertThatExceptionOfType(LimiterConfigurationException.class)
                .isThrownBy(() -> retuner.retune("orders", Map.of("lease", Map.of("permit", 5))))
                .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.lease.permit"));
            assertThat(orders.config().algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);

            Retuning leasing = retuner.retune("orders", Map.of("algorithm", "gcra", "lease", Map.of("permits", 5, "ttl", "100ms")));
            assertThat(leasing.current().lease()).isEqualTo(new RateLimiterConfig.Lease(5, Duration.ofMillis(100)));
            assertThat(orders.config().lease()).isEqualTo(new RateLimiterConfig.Lease(5, Duration.ofMillis(100)));
            assertThat(retuner.retune("orders", Map.of("lease.ttl", "1s")).current().lease())
                .isEqualTo(new RateLimiterConfig.Lease(5, Duration.ofSeconds(1)));

            Retuning off = retuner.retune("orders", Map.of("lease", Map.of("permits", "", "ttl", "")));
            assertThat(off.current().lease()).isNull();
            assertThat(off.stateKept()).as("leased permits are taken like any other: the keys stay").isTrue();
        });
    }

    /** Plans and rules are fixed at startup: a change to them is refused, naming it, and changes nothing else. */
    @Test
    void plansAndRulesAreRefusedWhileRunning() {
        this.contextRunner
            .withPropertyValues("limiter.limiters.tiers.algorithm=fixed-window", "limiter.limiters.tiers.default-plan=free",
                    "limiter.limiters.tiers.plans.free.limit=3", "limiter.limiters.tiers.plans.free.window=1m",
                    "limiter.limiters.tiers.plans.pro.limit=30", "limiter.limiters.tiers.plans.pro.window=1m")
            .run((context) -> {
                ConfigurableEnvironment environment = context.getEnvironment();
                LimiterRetuner retuner = context.getBean(LimiterRetuner.class);
                RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
                environment.getPropertySources().addFirst(new MapPropertySource("changes", Map.of("limiter.limiters.orders.limit", "30",
                        "limiter.limiters.tiers.plans.free.limit", "5")));
                assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(retuner::retune)
                    .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.tiers.plans"));
                assertThat(registry.get("orders").limits().get(0).limit()).isEqualTo(10);
                assertThat(registry.find("tiers", "free").orElseThrow().limits().get(0).limit()).isEqualTo(3);

                environment.getPropertySources().replace("changes", new MapPropertySource("changes", Map.of("limiter.limiters.orders.limit",
                        "30", "limiter.rules[0].paths", "/api/**", "limiter.rules[0].limiter", "orders")));
                assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(retuner::retune)
                    .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.rules"));
                assertThat(registry.get("orders").limits().get(0).limit()).isEqualTo(10);

                // A limiter with plans is not retuned through the endpoint either: it says why.
                var refused = context.getBean(LimitersEndpoint.class)
                    .retune("tiers", null, "5", null, null, null, null, null, null, null, null, null, null, null);
                assertThat(refused.getStatus()).isEqualTo(400);
                assertThat(refused.getBody().refused().property()).isEqualTo("limiter.limiters.tiers.plans");

                // The rest still retunes once the plans are as they were.
                environment.getPropertySources().replace("changes", new MapPropertySource("changes", Map.of("limiter.limiters.orders.limit",
                        "30")));
                assertThat(retuner.retune()).extracting(Retuning::limiter).containsExactly("orders");
            });
    }

    /** One bad value among good ones: none is applied, not even to the other limiter. */
    @Test
    void nothingIsHalfApplied() {
        this.contextRunner.run((context) -> {
            ConfigurableEnvironment environment = context.getEnvironment();
            LimiterRetuner retuner = context.getBean(LimiterRetuner.class);
            RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
            environment.getPropertySources().addFirst(new MapPropertySource("changes", Map.of("limiter.limiters.orders.limit", "30",
                    "limiter.limiters.reports.limit", "0")));
            assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(retuner::retune)
                .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.reports.limit"));
            assertThat(registry.get("orders").limits().get(0).limit()).isEqualTo(10);

            environment.getPropertySources().replace("changes", new MapPropertySource("changes", Map.of("limiter.limiters.orders.limit", "30",
                    "limiter.key-prefix", "elsewhere")));
            assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(retuner::retune)
                .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.key-prefix"));
            assertThat(registry.get("orders").limits().get(0).limit()).isEqualTo(10);

            environment.getPropertySources().replace("changes", new MapPropertySource("changes", Map.of("limiter.limiters.orders.limit", "30",
                    "limiter.limiters.added.limit", "7", "limiter.limiters.added.window", "1s")));
            List<Retuning> changes = retuner.retune();
            assertThat(changes).extracting(Retuning::limiter).containsExactly("orders");
            assertThat(registry.get("orders").limits().get(0).limit()).isEqualTo(30);
            assertThat(registry.get("added").limits()).containsExactly(LimitSpec.of(7, Duration.ofSeconds(1)));
        });
    }

    @Test
    void theEndpointsWriteOperationRetunesAndAnswersWhatBecameOfTheKeys() {
        this.contextRunner.run((context) -> {
            LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
            Service service = context.getBean(Service.class);
            take(4, () -> service.order("carol"));

            WebEndpointResponse<RetuneDescriptor> kept = endpoint.retune("orders", null, "20", null, null, null, null, null,
                    null, null, null, null, null, null);
            assertThat(kept.getStatus()).isEqualTo(200);
            assertThat(kept.getBody().changed()).isTrue();
            assertThat(kept.getBody().stateKept()).isTrue();
            assertThat(kept.getBody().state()).isEqualTo("keys keep their state (on-retune: keep)");
            assertThat(kept.getBody().current().limits()).containsExactly(new LimitDescriptor(20, "PT10S", null));
            assertThat(quotaOf(endpoint, "orders", "carol").remaining()).isEqualTo(16);

            WebEndpointResponse<RetuneDescriptor> fresh = endpoint.retune("orders", null, null, "20s", null, null, null,
                    null, null, null, null, null, null, null);
            assertThat(fresh.getBody().stateKept()).isFalse();
            assertThat(fresh.getBody().state()).contains("the windows changed ([PT10S] to [PT20S])");
            assertThat(quotaOf(endpoint, "orders", "carol").remaining()).isEqualTo(20);

            WebEndpointResponse<RetuneDescriptor> several = endpoint.retune("orders", "gcra", null, null, null,
                    "2/1s/3, 100/1h", null, "200ms", null, null, null, null, null, null);
            assertThat(several.getStatus()).isEqualTo(200);
            assertThat(several.getBody().current().limits()).containsExactly(new LimitDescriptor(2, "PT1S", 3L),
                    new LimitDescriptor(100, "PT1H", 100L));
            assertThat(several.getBody().current().maxWait()).isEqualTo("PT0.2S");
            WebEndpointResponse<RetuneDescriptor> single = endpoint.retune("orders", null, "5", "10s", null, null, null,
                    "0s", null, null, null, null, null, null);
            assertThat(single.getBody().current().limits()).containsExactly(new LimitDescriptor(5, "PT10S", 5L));

            WebEndpointResponse<RetuneDescriptor> refused = endpoint.retune("orders", "sliding-window", null, null, null,
                    null, "7", null, null, null, null, null, null, null);
            assertThat(refused.getStatus()).isEqualTo(400);
            assertThat(refused.getBody().refused().property()).isEqualTo("@RateLimited on Service.order(String)");
            assertThat(refused.getBody().refused().problem()).contains("does not divide into 7 sub-windows");
            assertThat(refused.getBody().current().algorithm()).as("still in force").isEqualTo("gcra");

            WebEndpointResponse<RetuneDescriptor> notation = endpoint.retune("orders", null, null, null, null, "10/1s/2/3", null,
                    null, null, null, null, null, null, null);
            assertThat(notation.getStatus()).isEqualTo(400);
            assertThat(notation.getBody().refused().property()).isEqualTo("limiter.limiters.orders.limits");
            assertThat(notation.getBody().refused().value()).isEqualTo("\"10/1s/2/3\"");
            assertThat(notation.getBody().refused().problem()).isEqualTo("Not a list of limits");
            assertThat(notation.getBody().refused().field()).isEqualTo("limits");

            assertThat(endpoint.retune("nonesuch", null, "5", null, null, null, null, null, null, null, null, null, null, null).getStatus()).isEqualTo(404);
        });
    }

    /**
     * Spring Cloud's {@code POST /actuator/env} (its EnvironmentManager) and refresh announce changed keys
     * with an EnvironmentChangeEvent: the limiters follow. Spring Cloud also rebinds the properties bean
     * in place, bad values included; the refused ones never reach the limiters.
     */
    @Test
    void springCloudsEnvironmentChangeEventRetunesAndABadValueIsOnlyLogged(CapturedOutput output) {
        this.contextRunner.withConfiguration(AutoConfigurations.of(ConfigurationPropertiesRebinderAutoConfiguration.class))
            .withUserConfiguration(EnvironmentManagerConfiguration.class)
            .run((context) -> {
                EnvironmentManager manager = context.getBean(EnvironmentManager.class);
                Service service = context.getBean(Service.class);
                take(4, () -> service.order("dave"));

                manager.setProperty("limiter.limiters.orders.limit", "20");
                assertThat(take(100, () -> service.order("dave"))).isEqualTo(16);

                manager.setProperty("limiter.limiters.orders.window", "0s");
                assertThat(output).contains("Limiter configuration change refused; the limits in force stay")
                    .contains("limiter.limiters.orders.window").contains("The window must be positive");
                RateLimiter orders = context.getBean(RateLimiterRegistry.class).get("orders");
                assertThat(orders.limits()).containsExactly(LimitSpec.of(20, Duration.ofSeconds(10)));
                assertThat(((LimiterDescriptor) context.getBean(LimitersEndpoint.class).limiter("orders")).sources()).containsEntry("limit",
                        "limiter.limiters.orders.limit");
                assertThat(take(100, () -> service.order("erin"))).isEqualTo(20);
                // Spring Cloud rebound the bean with the refused window; the definitions keep the values in force.
                assertThat(context.getBean(LimiterProperties.class).getLimiters().get("orders").getWindow()).isZero();
                assertThat(context.getBean(LimiterDefinitions.class).properties().getLimiters().get("orders").getWindow())
                    .isEqualTo(Duration.ofSeconds(10));
                assertThat(orders.config().onRetune()).isEqualTo(RetunePolicy.KEEP);
            });
    }

    /** Calls {@code call} until it is rejected, at most {@code most} times, and returns how many calls passed. */
    private static int take(int most, Runnable call) {
        for (int i = 0; i < most; i++) {
            try {
                call.run();
            }
            catch (RateLimitExceededException ex) {
                return i;
            }
        }
        return most;
    }

    /** The quota of a key of a limiter without plans, or of a key in one plan: what {@code quota} answers then. */
    private static QuotaDescriptor quotaOf(LimitersEndpoint endpoint, String name, String... path) {
        return (QuotaDescriptor) endpoint.quota(name, path);
    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        Service service() {
            return new Service();
        }

    }

    /** What Spring Cloud's writable env endpoint calls. */
    @Configuration(proxyBeanMethods = false)
    static class EnvironmentManagerConfiguration {

        @Bean
        EnvironmentManager environmentManager(ConfigurableEnvironment environment) {
            return new EnvironmentManager(environment);
        }

    }

    static class Service {

        @RateLimited(name = "orders", key = "#user", algorithm = Algorithm.TOKEN_BUCKET, limit = 1, window = "10s")
        public void order(String user) {
        }

        @RateLimited(name = "reports", key = "#user")
        public void report(String user) {
        }

    }

}
