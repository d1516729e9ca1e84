package dev.limiter.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterSites;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.web.LimiterWebMvcAutoConfiguration;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.servlet.autoconfigure.HttpEncodingAutoConfiguration;
import org.springframework.boot.servlet.autoconfigure.actuate.web.ServletManagementContextAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.server.servlet.context.AnnotationConfigServletWebServerApplicationContext;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

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

    /** The endpoint over HTTP, on a real server, beside a controller limited by the orders limiter. */
    private final WebApplicationContextRunner serverRunner = new WebApplicationContextRunner(
            AnnotationConfigServletWebServerApplicationContext::new)
        .withConfiguration(AutoConfigurations.of(TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
                WebMvcAutoConfiguration.class, HttpEncodingAutoConfiguration.class, JacksonAutoConfiguration.class,
                HttpMessageConvertersAutoConfiguration.class, ErrorMvcAutoConfiguration.class, EndpointAutoConfiguration.class,
                WebEndpointAutoConfiguration.class, ManagementContextAutoConfiguration.class, ServletManagementContextAutoConfiguration.class,
                DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class, LimiterActuatorAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(this.keyPrefix))
        .withPropertyValues("server.port=0", "management.endpoints.web.exposure.include=limiters", "limiter.limiters.orders.limit=3",
                "limiter.limiters.search.limit=100", "limiter.limiters.search.window=1m")
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(ServiceConfiguration.class, OrderController.class);

    /** Routes of other modules that use a limiter (gateway routes, outgoing calls) show among its users. */
    @Test
    void usedByNamesTheRoutesOfOtherModules() {
        this.contextRunner.withBean(LimiterSites.class, () -> () -> Map.of("search", List.of("limiter.outgoing[0]")))
            .run((context) -> assertThat(((LimiterDescriptor) context.getBean(LimitersEndpoint.class).limiter("search")).usedBy())
                .containsExactly("limiter.outgoing[0]"));
    }

    @Test
    void listsEveryLimiterWithItsEffectiveConfigurationAndWhereEachValueCameFrom() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.lease.permits=4", "limiter.limiters.orders.lease.ttl=20ms").run((context) -> {
            LimitersEndpoint endpoint = context.getBean(LimitersEndpoint.class);
            LimitersDescriptor all = endpoint.limiters();
            assertThat(all.backend()).isEqualTo("redis");
            // This instance counts itself through its heartbeat; no other runs with this key prefix.
            assertThat(all.redis()).isEqualTo(new RedisDescriptor(true, 1, true));
            assertThat(all.limiters()).containsOnlyKeys("orders", "search");

            LimiterDescriptor orders = all.limiters().get("orders");
            assertThat(orders.algorithm()).isEqualTo("token-bucket");
            assertThat(orders.limits()).containsExactly(new LimitDescriptor(3, "PT10S", 5L));
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
            assertThat(orders.lease()).isEqualTo(new LeaseDescriptor(4, "PT0.02S"));
            assertThat(sources.get("lease")).isEqualTo("limiter.limiters.orders.lease");

            LimiterDescriptor search = (LimiterDescriptor) endpoint.limiter("search");
            assertThat(search.algorithm()).isEqualTo("sliding-window");
            assertThat(search.limits()).containsExactly(new LimitDescriptor(100, "PT1M", null));
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
            assertThat(((LimiterDescriptor) endpoint.limiter("exports")).sources()).isEmpty();
            assertThat(((LimiterDescriptor) endpoint.limiter("exports")).algorithm()).isEqualTo("fixed-window");
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
                Map<String, LimiterDescriptor> limiters = context.getBean(LimitersEndpoint.class).limiters().limiters();
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
            LimiterDescriptor search = (LimiterDescriptor) endpoint.limiter("search");
            assertThat(search.limits()).containsExactly(new LimitDescriptor(120, "PT2M", null));
            assertThat(search.sources()).containsEntry("limit", "limiter.limiters.search.limit");
            assertThat(search.origins()).containsEntry("limit", "class path resource [limiter-origins.yml] - 4:14")
                .containsEntry("window", "class path resource [limiter-origins.yml] - 5:15");
            // What an annotation or a default set has no property origin.
            LimiterDescriptor orders = (LimiterDescriptor) endpoint.limiter("orders");
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
            assertThat(quotaOf(endpoint, "orders", "alice")).isEqualTo(new QuotaDescriptor("orders", null, "alice", 5, 5, "PT0S", "redis"));
            assertThat(redis.keys(this.keyPrefix + ":{orders:*")).as("reading writes nothing").isEmpty();
            service.order("alice");
            service.order("alice");
            for (int i = 0; i < 10; i++) {
                assertThat(quotaOf(endpoint, "orders", "alice").remaining()).isEqualTo(3);
            }
            assertThat(quotaOf(endpoint, "orders", "alice").resetAfter()).isEqualTo(Duration.ofNanos(6_666_667_000L).toString());
            service.order("alice");
            service.order("alice");
            service.order("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.order("alice"));
            assertThat(quotaOf(endpoint, "orders", "alice").remaining()).isZero();
            assertThat(quotaOf(endpoint, "nonesuch", "alice")).isNull();
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

            WebEndpointResponse<ResetDescriptor> reset = endpoint.reset("orders", "alice");
            assertThat(reset.getStatus()).isEqualTo(200);
            assertThat(reset.getBody()).isEqualTo(new ResetDescriptor("orders", null, "alice", true, true, null));
            assertThat(quotaOf(endpoint, "orders", "alice").remaining()).isEqualTo(5);
            assertThat(quotaOf(endpoint, "orders", "bob").remaining()).as("other keys keep their state").isEqualTo(4);
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

            WebEndpointResponse<RefundDescriptor> refund = endpoint.refund("orders", 2L, "alice");

            assertThat(refund.getStatus()).isEqualTo(200);
            assertThat(refund.getBody()).isEqualTo(new RefundDescriptor("orders", null, "alice", true, 2L, 5L, 2L,
                    quotaOf(endpoint, "orders", "alice").resetAfter(), "redis", null, null));
            service.order("alice");
            service.order("alice");
            assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.order("alice"));

            assertThat(endpoint.refund("orders", null, "alice").getStatus()).isEqualTo(400);
            assertThat(endpoint.refund("orders", 0L, "alice").getBody().refused().problem()).isEqualTo("permits must be at least 1 but was 0");
            assertThat(endpoint.refund("nonesuch", 1L, "alice").getStatus()).isEqualTo(404);
            assertThat(quotaOf(endpoint, "orders", "free", "alice").key()).as("a limiter without plans reads free/alice as one key").isEqualTo("free/alice");
        });
    }

    @Test
    void writeOperationsAreRefusedByDefaultNamingThePropertyAndReadsStayOpen() {
        this.serverRunner.run(overHttp((http) -> {
            for (int i = 0; i < 5; i++) {
                http.order("alice");
            }
            for (HttpResponse<String> refused : List.of(http.send("POST", "/actuator/limiters/orders", "{\"limit\": 2147483647}"),
                    http.send("DELETE", "/actuator/limiters/orders/alice", null),
                    http.send("POST", "/actuator/limiters/orders/alice", "{\"permits\": 5}"))) {
                assertThat(refused.statusCode()).isEqualTo(403);
                assertThat(refused.body()).contains("\"message\":\"The limiters endpoint's write operations (retune, reset, refund) are off: "
                        + "set limiter.endpoint.write-operations.enabled=true to allow them");
            }
            assertThat(http.get("/actuator/limiters/orders").body()).as("the limit in force stays").contains("\"limit\":3");
            assertThat(http.get("/actuator/limiters/orders/alice").body()).as("the key keeps its state").contains("\"remaining\":0");
            assertThat(http.order("alice")).isEqualTo(429);
        }));
    }

    @Test
    void enabledWriteOperationsRetuneResetAndRefund() {
        this.serverRunner.withPropertyValues("limiter.endpoint.write-operations.enabled=true").run(overHttp((http) -> {
            for (int i = 0; i < 5; i++) {
                http.order("alice");
            }
            HttpResponse<String> refund = http.send("POST", "/actuator/limiters/orders/alice", "{\"permits\": 2}");
            assertThat(refund.statusCode()).as(refund.body()).isEqualTo(200);
            assertThat(http.get("/actuator/limiters/orders/alice").body()).contains("\"remaining\":2");
            assertThat(http.send("DELETE", "/actuator/limiters/orders/alice", null).statusCode()).isEqualTo(200);
            assertThat(http.get("/actuator/limiters/orders/alice").body()).contains("\"remaining\":5");
            HttpResponse<String> retune = http.send("POST", "/actuator/limiters/orders", "{\"limit\": 7, \"burst\": 7}");
            assertThat(retune.statusCode()).as(retune.body()).isEqualTo(200);
            assertThat(http.get("/actuator/limiters/orders").body()).contains("\"limit\":7");
        }));
    }

    @Test
    void everyBadRequestIsRefusedWithAMessageNamingTheFieldTheValueAndWhatToSend() {
        this.serverRunner.withPropertyValues("limiter.endpoint.write-operations.enabled=true").run(overHttp((http) -> {
            HttpResponse<String> unknown = http.send("POST", "/actuator/limiters/orders", "{\"lmit\": 7}");
            assertThat(unknown.statusCode()).isEqualTo(400);
            assertThat(unknown.body()).contains("Unknown field 'lmit' (value \\\"7\\\"): send only algorithm, limit, window, burst");
            HttpResponse<String> empty = http.send("POST", "/actuator/limiters/orders", "{\"limit\": null}");
            assertThat(empty.statusCode()).isEqualTo(400);
            assertThat(empty.body()).contains("Field 'limit' is null: send a value, or leave the field out to keep the one in force");
            HttpResponse<String> noPermits = http.send("POST", "/actuator/limiters/orders/alice", "{\"permits\": null}");
            assertThat(noPermits.statusCode()).isEqualTo(400);
            assertThat(noPermits.body()).contains("Field 'permits' is null");
            HttpResponse<String> notANumber = http.send("POST", "/actuator/limiters/orders/alice", "{\"permits\": \"two\"}");
            assertThat(notANumber.statusCode()).isEqualTo(400);
            assertThat(notANumber.body()).contains("Field 'permits' has value \\\"two\\\", which is not a whole number");
            HttpResponse<String> unknownOnRefund = http.send("POST", "/actuator/limiters/orders/alice", "{\"permit\": 1}");
            assertThat(unknownOnRefund.statusCode()).isEqualTo(400);
            assertThat(unknownOnRefund.body()).contains("Unknown field 'permit' (value \\\"1\\\"): send only permits");

            HttpResponse<String> maxWait = http.send("POST", "/actuator/limiters/orders", "{\"maxWait\": \"2d\"}");
            assertThat(maxWait.statusCode()).isEqualTo(400);
            assertThat(maxWait.body()).contains("\"property\":\"limiter.limiters.orders.max-wait\"", "\"field\":\"maxWait\"",
                    "\"value\":\"PT48H\"", "max-wait must be whole microseconds between 0 and PT24H").doesNotContain("Correct the limits");

            HttpResponse<String> malformed = http.send("POST", "/actuator/limiters/orders", "{\"limit\": 7");
            assertThat(malformed.statusCode()).isEqualTo(400);
            assertThat(malformed.body()).contains("\"message\":\"The body is not a JSON object whose fields hold text or numbers");
            HttpResponse<String> list = http.send("POST", "/actuator/limiters/orders", "{\"limits\": [{\"limit\": 1}]}");
            assertThat(list.statusCode()).isEqualTo(400);
            assertThat(list.body()).contains("several limits go as one text");

            for (HttpResponse<String> missing : List.of(http.get("/actuator/limiters/nonesuch"), http.get("/actuator/limiters/nonesuch/alice"),
                    http.send("POST", "/actuator/limiters/nonesuch", "{\"limit\": 7}"), http.send("DELETE", "/actuator/limiters/nonesuch/alice", null),
                    http.send("POST", "/actuator/limiters/nonesuch/alice", "{\"permits\": 1}"))) {
                assertThat(missing.statusCode()).isEqualTo(404);
                assertThat(missing.body()).contains("\"message\":\"No limiter named 'nonesuch': the limiters are [", "orders", "search");
            }
            assertThat(http.get("/actuator/limiters/orders").body()).as("nothing was retuned").contains("\"limit\":3");
        }));
    }

    @Test
    void aKeyOfAnyCharactersIsReadResetAndRefundedOverHttp() {
        this.serverRunner.withPropertyValues("limiter.endpoint.write-operations.enabled=true").run(overHttp((http) -> {
            // A servlet container hands a header over as ISO-8859-1: UTF-8 bytes of "\u30e6" reach the application
            // as three characters, the key limited; the endpoint reaches that exact key by its own UTF-8 encoding.
            assertThat(http.orderByHeader("\u30e6")).isEqualTo(200);
            String asLimited = new String("\u30e6".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
            assertThat(http.get("/actuator/limiters/orders/" + encodePath(asLimited)).body()).contains("\"remaining\":4");
            assertThat(http.send("DELETE", "/actuator/limiters/orders/" + encodePath(asLimited), null).body()).contains("\"hadState\":true");
            assertThat(quotaOf(endpoint(http), "orders", asLimited).remaining()).isEqualTo(5);

            for (String key : List.of("\u30e6", "tenant-1/alice", "100% \u00e9t\u00e9", "a;b?c#d")) {
                for (int i = 0; i < 5; i++) {
                    assertThat(http.order(key)).isEqualTo(200);
                }
                assertThat(http.order(key)).isEqualTo(429);
                String path = "/actuator/limiters/orders/" + encodePath(key);
                HttpResponse<String> quota = http.get(path);
                assertThat(quota.body()).as(key).contains("\"remaining\":0");

                HttpResponse<String> refund = http.send("POST", path, "{\"permits\": 1}");
                assertThat(refund.statusCode()).as(refund.body()).isEqualTo(200);
                assertThat(quotaOf(endpoint(http), "orders", key).remaining()).as("the limited key got its permit back: " + key).isEqualTo(1);
                assertThat(http.order(key)).isEqualTo(200);

                HttpResponse<String> reset = http.send("DELETE", path, null);
                assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
                assertThat(quotaOf(endpoint(http), "orders", key).remaining()).as("the limited key is whole again: " + key).isEqualTo(5);
            }
        }));
    }

    @Test
    void theMemoryBackendIsListedAndHasNoHealthIndicator() {
        this.contextRunner.withPropertyValues("limiter.backend=memory").run((context) -> {
            assertThat(context.getBean(LimitersEndpoint.class).limiters().backend()).isEqualTo("memory");
            assertThat(context.getBean(LimitersEndpoint.class).limiters().redis()).isNull();
            assertThat(quotaOf(context.getBean(LimitersEndpoint.class), "orders", "bob").source()).isEqualTo("memory");
            context.getBean(Service.class).order("bob");
            assertThat(context.getBean(LimitersEndpoint.class).reset("orders", "bob").getBody().hadState()).isTrue();
            assertThat(quotaOf(context.getBean(LimitersEndpoint.class), "orders", "bob").remaining()).isEqualTo(5);
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
                    assertThat(quotaOf(context.getBean(LimitersEndpoint.class), "orders", "carol").source()).isEqualTo("failure-policy");
                    WebEndpointResponse<ResetDescriptor> reset = context.getBean(LimitersEndpoint.class)
                        .reset("orders", "carol");
                    assertThat(reset.getStatus()).as("a reset while Redis is out does not pretend").isEqualTo(503);
                    assertThat(reset.getBody().reset()).isFalse();
                    assertThat(reset.getBody().error()).contains("Redis is unavailable");
                    WebEndpointResponse<RefundDescriptor> refund = context.getBean(LimitersEndpoint.class)
                        .refund("orders", 1L, "carol");
                    assertThat(refund.getStatus()).as("a refund while Redis is out does not pretend").isEqualTo(503);
                    assertThat(refund.getBody().refunded()).isFalse();
                    assertThat(refund.getBody().error()).isEqualTo("Could not give 1 permit back to key 'carol' of limiter 'orders': "
                            + "Redis is unavailable (the limiters follow their failure policy); try again once it answers");
                });
        }
    }

    /** Runs {@code test} against the server the context started. */
    private static ContextConsumer<AssertableWebApplicationContext> overHttp(ThrowingHttpTest test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            int port = ((ServletWebServerApplicationContext) context.getSourceApplicationContext()).getWebServer().getPort();
            test.run(new Http(port, context));
        };
    }

    private static LimitersEndpoint endpoint(Http http) {
        return http.context().getBean(LimitersEndpoint.class);
    }

    /** Each character that is not unreserved percent-encoded as UTF-8, but '/' kept: it separates path segments. */
    private static String encodePath(String key) {
        StringBuilder path = new StringBuilder();
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c == '/' || c == '-' || c == '.' || c == '_' || c == '~' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')) {
                path.append(c);
            }
            else {
                path.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return path.toString();
    }

    @FunctionalInterface
    interface ThrowingHttpTest {

        void run(Http http) throws Exception;

    }

    /** HTTP calls to the test's server: its endpoint, and GET /orders limited per user. */
    record Http(int port, AssertableWebApplicationContext context) {

        private static final HttpClient CLIENT = HttpClient.newHttpClient();

        HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return send("GET", path, null);
        }

        HttpResponse<String> send(String method, String path, String json) throws IOException, InterruptedException {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .method(method, (json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
            if (json != null) {
                request.header("Content-Type", "application/json");
            }
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }

        /** GET /orders?user=..., {@code user} percent-encoded as UTF-8; the status. */
        int order(String user) throws IOException, InterruptedException {
            return send("GET", "/orders?user=" + encodePath(user).replace("/", "%2F"), null).statusCode();
        }

        /**
         * GET /orders with {@code user} in the X-User-Id header as UTF-8 bytes, as curl sends it (Java's
         * HttpClient would send '?' instead); the status.
         */
        int orderByHeader(String user) throws IOException {
            try (Socket socket = new Socket("localhost", port)) {
                OutputStream out = socket.getOutputStream();
                out.write(("GET /orders HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-User-Id: ").getBytes(StandardCharsets.US_ASCII));
                out.write(user.getBytes(StandardCharsets.UTF_8));
                out.write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String status = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                return Integer.parseInt(status.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
            }
        }

    }

    @RestController
    static class OrderController {

        private final Service service;

        OrderController(Service service) {
            this.service = service;
        }

        @GetMapping("/orders")
        String orders(@RequestParam(name = "user", required = false) String user,
                @RequestHeader(name = "X-User-Id", required = false) String header) {
            try {
                service.order((user != null) ? user : header);
                return "ordered";
            }
            catch (RateLimitExceededException ex) {
                throw new org.springframework.web.server.ResponseStatusException(org.springframework.http.HttpStatus.TOO_MANY_REQUESTS);
            }
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

    /** The quota of a key of a limiter without plans, or of a key in one plan: what {@code quota} answers then. */
    private static QuotaDescriptor quotaOf(LimitersEndpoint endpoint, String name, String... path) {
        return (QuotaDescriptor) endpoint.quota(name, path);
    }
}
