package dev.limiter.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.web.LimiterWebMvcAutoConfiguration;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The {@code limiters} actuator endpoint and health indicator, on real Redis. */
@RedisTest
class LimiterActuatorTests {

    private final String keyPrefix = TestRedisProperties.uniqueKeyPrefix();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterActuatorAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withPropertyValues("management.endpoints.web.exposure.include=limiters,health",
                "limiter.limiters.orders.limit=3", "limiter.limiters.orders.max-wait=0s",
                "limiter.limiters.search.algorithm=sliding-window", "limiter.limiters.search.limit=100",
                "limiter.limiters.search.window=1m", "limiter.limiters.search.sub-windows=6", "limiter.limiters.search.shadow=true")
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(ServiceConfiguration.class);

    @Test
    void listsEveryLimiterWithItsEffectiveConfigurationAndWhereEachValueCameFrom() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.lease.permits=4", "limiter.limiters.orders.lease.ttl=20ms").run((context) -> {
            LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
            LimitersEndpoint.LimitersDescriptor all = endpoint.limiters();
            assertThat(all.backend()).isEqualTo("redis");
            // This instance counts itself through its heartbeat; no other runs with this key prefix.
            assertThat(all.redis()).isEqualTo(new LimitersEndpoint.RedisDescriptor(true, 1, true));
            assertThat(all.limiters()).containsOnlyKeys("orders", "search");

            LimitersEndpoint.LimiterDescriptor orders = all.limiters().get("orders");
            assertThat(orders.algorithm()).isEqualTo("token-bucket");
            assertThat(orders.limits()).containsExactly(new LimitersEndpoint.LimitDescriptor(3, "PT10S", 5L));
            assertThat(orders.maxWait()).isEqualTo("PT0S");
            assertThat(orders.subWindows()).isNull();
            assertThat(orders.shadow()).isFalse();
            assertThat(orders.usedBy()).singleElement().asString().endsWith("order(String)");
            Map<String, String> sources = orders.sources();
            assertThat(sources.get("algorithm")).isEqualTo(orders.usedBy().get(0));
            assertThat(sources.get("limit")).isEqualTo("limiter.limiters.orders.limit");
            assertThat(sources.get("window")).isEqualTo(orders.usedBy().get(0));
            assertThat(sources.get("burst")).isEqualTo(orders.usedBy().get(0));
            assertThat(sources.get("max-wait")).isEqualTo("limiter.limiters.orders.max-wait");
            assertThat(sources.get("shadow")).isEqualTo("default");
            assertThat(sources.get("on-redis-failure")).isEqualTo("limiter.on-redis-failure");
            assertThat(orders.lease()).isEqualTo(new LimitersEndpoint.LeaseDescriptor(4, "PT0.02S"));
            assertThat(sources.get("lease")).isEqualTo("limiter.limiters.orders.lease");

            LimitersEndpoint.LimiterDescriptor search = endpoint.limiter("search");
            assertThat(search.algorithm()).isEqualTo("sliding-window");
            assertThat(search.limits()).containsExactly(new LimitersEndpoint.LimitDescriptor(100, "PT1M", null));
            assertThat(search.subWindows()).isEqualTo(6);
            assertThat(search.lease()).isNull();
            assertThat(search.shadow()).isTrue();
            assertThat(search.usedBy()).isEmpty();
            assertThat(search.sources()).containsEntry("algorithm", "limiter.limiters.search.algorithm")
                .containsEntry("sub-windows", "limiter.limiters.search.sub-windows")
                .containsEntry("shadow", "limiter.limiters.search.shadow");

            assertThat(endpoint.limiter("nonesuch")).isNull();

            // A limiter the application registers in code took nothing from configuration or annotations.
            context.getBean(RateLimiterRegistry.class).register("exports", Algorithm.FIXED_WINDOW, LimitSpec.of(10, Duration.ofMinutes(1)));
            assertThat(endpoint.limiter("exports").sources()).isEmpty();
            assertThat(endpoint.limiter("exports").algorithm()).isEqualTo("fixed-window");
        });
    }

    @Test
    void usedByListsTheRulesDecidingByTheLimiterAfterItsMethods() {
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, DataRedisAutoConfiguration.class,
                    LimiterAutoConfiguration.class, LimiterActuatorAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
            .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
            .withPropertyValues("management.endpoints.web.exposure.include=limiters", "limiter.limiters.orders.limit=3",
                    "limiter.limiters.pages.limit=10", "limiter.limiters.pages.window=1m",
                    "limiter.rules[0].paths=/pages/**, /docs/**", "limiter.rules[0].limiter=pages",
                    "limiter.rules[1].paths=/orders/**", "limiter.rules[1].methods=post", "limiter.rules[1].limiter=orders")
            .withBean(VirtualClock.class, VirtualClock::new)
            .withUserConfiguration(ServiceConfiguration.class)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                Map<String, LimitersEndpoint.LimiterDescriptor> limiters = context.getBean(LimitersEndpoint.class).limiters().limiters();
                assertThat(limiters.get("pages").usedBy()).containsExactly("limiter.rules[0] /pages/**, /docs/**");
                assertThat(limiters.get("orders").usedBy()).hasSize(2);
                assertThat(limiters.get("orders").usedBy().get(0)).endsWith("order(String)");
                assertThat(limiters.get("orders").usedBy().get(1)).isEqualTo("limiter.rules[1] POST /orders/**");
            });
    }

    @Test
    void showsTheFileAndLineWhereEachPropertyWasSet() {
        this.contextRunner.withInitializer((context) -> {
            try {
                new YamlPropertySourceLoader().load("limiter-origins", new ClassPathResource("limiter-origins.yml"))
                    .forEach(context.getEnvironment().getPropertySources()::addFirst);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }).run((context) -> {
            LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
            LimitersEndpoint.LimiterDescriptor search = endpoint.limiter("search");
            assertThat(search.limits()).containsExactly(new LimitersEndpoint.LimitDescriptor(120, "PT2M", null));
            assertThat(search.sources()).containsEntry("limit", "limiter.limiters.search.limit");
            assertThat(search.origins()).containsEntry("limit", "class path resource [limiter-origins.yml] - 4:14")
                .containsEntry("window", "class path resource [limiter-origins.yml] - 5:15");
            // What an annotation or a default set has no property origin.
            LimitersEndpoint.LimiterDescriptor orders = endpoint.limiter("orders");
            assertThat(orders.sources().get("algorithm")).isEqualTo(orders.usedBy().get(0));
            assertThat(orders.origins()).doesNotContainKeys("algorithm", "shadow");
        });
    }

    @Test
    void showsTheQuotaOfOneKeyWithoutTakingAPermit() {
        this.contextRunner.run((context) -> {
            LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
            Service service = context.getBean(Service.class);
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            assertThat(endpoint.quota("orders", "alice")).isEqualTo(new LimitersEndpoint.QuotaDescriptor("orders", null, "alice", 5, 5, "PT0S", "redis"));
            assertThat(redis.keys(this.keyPrefix + ":{orders:*")).as("reading writes nothing").isEmpty();
            service.order("alice");
            service.order("alice");
            for (int i = 0; i < 10; i++) {
                assertThat(endpoint.quota("orders", "alice").remaining()).isEqualTo(3);
            }
            assertThat(endpoint.quota("orders", "alice").resetAfter()).isEqualTo(Duration.ofNanos(6_666_667_000L).toString());
            service.order("alice");
            service.order("alice");
            service.order("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.order("alice"));
            assertThat(endpoint.quota("orders", "alice").remaining()).isZero();
            assertThat(endpoint.quota("nonesuch", "alice")).isNull();
        });
    }

    @Test
    void deletingAKeyResetsItAndAnswersWhatWasReset() {
        this.contextRunner.run((context) -> {
            LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
            Service service = context.getBean(Service.class);
            for (int i = 0; i < 5; i++) {
                service.order("alice");
            }
            service.order("bob");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.order("alice"));

            WebEndpointResponse<LimitersEndpoint.ResetDescriptor> reset = endpoint.reset("orders", "alice");
            assertThat(reset.getStatus()).isEqualTo(200);
            assertThat(reset.getBody()).isEqualTo(new LimitersEndpoint.ResetDescriptor("orders", null, "alice", true, true, null));
            assertThat(endpoint.quota("orders", "alice").remaining()).isEqualTo(5);
            assertThat(endpoint.quota("orders", "bob").remaining()).as("other keys keep their state").isEqualTo(4);
            service.order("alice");

            assertThat(endpoint.reset("orders", "carol").getBody().hadState()).as("an idle key").isFalse();
            assertThat(endpoint.reset("nonesuch", "alice").getStatus()).isEqualTo(404);
            assertThat(endpoint.reset("nonesuch", "alice").getBody()).isNull();
        });
    }

    @Test
    void postingPermitsToAKeyGivesThemBackAndAnswersTheQuotaAfter() {
        this.contextRunner.run((context) -> {
            LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
            Service service = context.getBean(Service.class);
            for (int i = 0; i < 5; i++) {
                service.order("alice");
            }
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.order("alice"));

            WebEndpointResponse<LimitersEndpoint.RefundDescriptor> refund = endpoint.refund("orders", "alice", 2L);

            assertThat(refund.getStatus()).isEqualTo(200);
            assertThat(refund.getBody()).isEqualTo(new LimitersEndpoint.RefundDescriptor("orders", null, "alice", true, 2L, 5L, 2L,
                    endpoint.quota("orders", "alice").resetAfter(), "redis", null, null));
            service.order("alice");
            service.order("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.order("alice"));

            assertThat(endpoint.refund("orders", "alice", null).getStatus()).isEqualTo(400);
            assertThat(endpoint.refund("orders", "alice", 0L).getBody().refused().problem()).isEqualTo("permits must be at least 1 but was 0");
            assertThat(endpoint.refund("nonesuch", "alice", 1L).getStatus()).isEqualTo(404);
            assertThat(endpoint.refundPlan("orders", "free", "alice", 1L).getStatus()).as("a limiter without plans has no plan").isEqualTo(404);
        });
    }

    @Test
    void theMemoryBackendIsListedAndHasNoHealthIndicator() {
        this.contextRunner.withPropertyValues("limiter.backend=memory").run((context) -> {
            assertThat(context.getBean(LimitersEndpoint.class).limiters().backend()).isEqualTo("memory");
            assertThat(context.getBean(LimitersEndpoint.class).limiters().redis()).isNull();
            assertThat(context.getBean(LimitersEndpoint.class).quota("orders", "bob").source()).isEqualTo("memory");
            context.getBean(Service.class).order("bob");
            assertThat(context.getBean(LimitersEndpoint.class).reset("orders", "bob").getBody().hadState()).isTrue();
            assertThat(context.getBean(LimitersEndpoint.class).quota("orders", "bob").remaining()).isEqualTo(5);
            assertThat(context).doesNotHaveBean("limitersHealthIndicator");
        });
    }

    @Test
    void theEndpointCanBeTurnedOff() {
        this.contextRunner.withPropertyValues("management.endpoint.limiters.access=NONE")
            .run((context) -> assertThat(context).doesNotHaveBean(LimitersEndpoint.class));
    }

    @Test
    void healthIsUpWhileRedisDecidesAndDegradedWhileTheFailurePolicyDoes() {
        try (TestRedis redis = TestRedis.start()) {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
            this.contextRunner
                .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=health-" + UUID.randomUUID(),
                        "limiter.on-redis-failure=deny")
                .run((context) -> {
                    HealthIndicator health = context.getBean("limitersHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(health.health().getDetails()).containsEntry("backend", "redis")
                        .containsEntry("onRedisFailure", "deny")
                        .containsEntry("instances", 1)
                        .containsEntry("instancesCounted", true);
                    redis.kill();
                    // Out once the client's attempt to reconnect is refused and a call fails after it.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    do {
                        assertThatExceptionOfType(RateLimitExceededException.class)
                            .isThrownBy(() -> context.getBean(Service.class).order("carol"));
                        Thread.sleep(5);
                    }
                    while (health.health().getStatus().equals(Status.UP) && System.nanoTime() < deadline);
                    assertThat(health.health().getStatus().getCode()).isEqualTo("DEGRADED");
                    assertThat(health.health().getDetails()).containsEntry("redis", redis.host() + ":" + redis.port())
                        .hasEntrySatisfying("reason", (reason) -> assertThat(reason).asString().contains("Connection refused"));
                    assertThat(context.getBean(LimitersEndpoint.class).quota("orders", "carol").source()).isEqualTo("failure-policy");
                    WebEndpointResponse<LimitersEndpoint.ResetDescriptor> reset = context.getBean(LimitersEndpoint.class)
                        .reset("orders", "carol");
                    assertThat(reset.getStatus()).as("a reset while Redis is out does not pretend").isEqualTo(503);
                    assertThat(reset.getBody().reset()).isFalse();
                    assertThat(reset.getBody().error()).contains("Redis is unavailable");
                    WebEndpointResponse<LimitersEndpoint.RefundDescriptor> refund = context.getBean(LimitersEndpoint.class)
                        .refund("orders", "carol", 1L);
                    assertThat(refund.getStatus()).as("a refund while Redis is out does not pretend").isEqualTo(503);
                    assertThat(refund.getBody().refunded()).isFalse();
                    assertThat(refund.getBody().error()).isEqualTo("Could not give 1 permit back to key 'carol' of limiter 'orders': "
                            + "Redis is unavailable (the limiters follow their failure policy); try again once it answers");
                });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        Service service() {
            return new Service();
        }

    }

    static class Service {

        @RateLimited(name = "orders", key = "#user", algorithm = Algorithm.TOKEN_BUCKET, limit = 1, window = "10s", burst = 5)
        public void order(String user) {
        }

    }

}
