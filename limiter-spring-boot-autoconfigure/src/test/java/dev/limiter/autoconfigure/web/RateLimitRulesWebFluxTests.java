package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import dev.limiter.RateLimitExceededException;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.metrics.LimiterMetricsAutoConfiguration;
import dev.limiter.spring.internal.web.RateLimitRuleWebFilter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Rules of limiter.rules in WebFlux, on Redis through its reactive API, over HTTP (WebTestClient with
 * the application's web filters): endpoints without any annotation are limited by path, method,
 * conditions and request keys, with the 429 answer, RateLimit fields, metrics, shadow mode and
 * missing-key policy of annotated methods.
 */
@RedisTest
@Timeout(60)
class RateLimitRulesWebFluxTests {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterMetricsAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues("limiter.client-ip.trusted-proxies=10.0.0.0/8", "limiter.limiters.pages.algorithm=fixed-window",
                "limiter.limiters.pages.limit=2", "limiter.limiters.pages.window=1m")
        .withBean(VirtualClock.class, () -> new VirtualClock(RateLimitRulesWebMvcTests.START_OF_AN_HOUR))
        .withUserConfiguration(TestNetwork.class, PlainController.class);

    /** One rule: GET and POST /pages/** limited per client address by limiter "pages", 2 a minute. */
    private static final String[] PAGES_BY_CLIENT_IP = { "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
            "limiter.rules[0].key=#clientIp" };

    @Test
    void ruleLimitsAnEndpointWithoutAnnotationAndRejectedRequestsNeverReachIt() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).run(withClient((client, context) -> {
            get(client, "/pages/1", "203.0.113.1").exchange().expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit-Policy", "\"pages\";q=2;w=60")
                .expectHeader().valueEquals("RateLimit", "\"pages\";r=1;t=60");
            get(client, "/pages/2", "203.0.113.1").exchange().expectStatus().isOk()
                .expectHeader().valueEquals("RateLimit", "\"pages\";r=0;t=60");
            get(client, "/pages/3", "203.0.113.1").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "60")
                .expectHeader().valueEquals("RateLimit-Policy", "\"pages\";q=2;w=60")
                .expectHeader().valueEquals("RateLimit", "\"pages\";r=0;t=60")
                .expectBody()
                .jsonPath("$.limiter").isEqualTo("pages")
                .jsonPath("$.status").isEqualTo(429)
                .jsonPath("$.violatedLimit").isEqualTo("2/1m");
            assertThat(context.getBean(PlainController.class).calls).hasValue(2);
            for (int i = 0; i < 3; i++) {
                get(client, "/open", "203.0.113.1").exchange().expectStatus().isOk().expectHeader().doesNotExist("RateLimit");
            }
        }));
    }

    @Test
    void clientsBehindATrustedProxyKeepSeparateLimits() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).run(withClient((client, context) -> {
            for (int i = 0; i < 2; i++) {
                get(client, "/pages/1", "10.0.0.5").header("X-Forwarded-For", "198.51.100.1").exchange().expectStatus().isOk();
                get(client, "/pages/1", "10.0.0.5").header("X-Forwarded-For", "198.51.100.2").exchange().expectStatus().isOk();
            }
            get(client, "/pages/1", "10.0.0.7").header("X-Forwarded-For", "198.51.100.1").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            get(client, "/pages/1", "10.0.0.5").exchange().expectStatus().isOk();
            get(client, "/pages/1", "203.0.113.9").header("X-Forwarded-For", "198.51.100.3").exchange().expectStatus().isOk();
            get(client, "/pages/1", "203.0.113.9").header("X-Forwarded-For", "198.51.100.4").exchange().expectStatus().isOk();
            get(client, "/pages/1", "203.0.113.9").header("X-Forwarded-For", "198.51.100.5").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void methodsLimitOnlyThoseMethods() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].methods=POST")
            .run(withClient((client, context) -> {
                for (int i = 0; i < 4; i++) {
                    client.get().uri("/pages/1").exchange().expectStatus().isOk().expectHeader().doesNotExist("RateLimit");
                }
                client.post().uri("/pages/1").exchange().expectStatus().isOk();
                client.post().uri("/pages/1").exchange().expectStatus().isOk();
                client.post().uri("/pages/1").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            }));
    }

    @Test
    void whenAndUnlessChooseTheRequestsTheRuleAppliesTo() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP)
            .withPropertyValues("limiter.rules[0].when=#request.headers.getFirst('X-Plan') == 'free'",
                    "limiter.rules[0].unless=#clientIp == '10.0.0.9'")
            .run(withClient((client, context) -> {
                for (int i = 0; i < 3; i++) {
                    client.get().uri("/pages/1").header("X-Plan", "pro").exchange().expectStatus().isOk()
                        .expectHeader().doesNotExist("RateLimit");
                    get(client, "/pages/1", "10.0.0.9").header("X-Plan", "free").exchange().expectStatus().isOk();
                }
                client.get().uri("/pages/1").header("X-Plan", "free").exchange().expectStatus().isOk();
                client.get().uri("/pages/1").header("X-Plan", "free").exchange().expectStatus().isOk();
                client.get().uri("/pages/1").header("X-Plan", "free").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            }));
    }

    @Test
    void shadowLimiterLetsRejectedRequestsThroughWithoutFieldsAndCountsThem() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.limiters.pages.shadow=true")
            .run(withClient((client, context) -> {
                for (int i = 0; i < 4; i++) {
                    client.get().uri("/pages/1").exchange().expectStatus().isOk().expectHeader().doesNotExist("RateLimit")
                        .expectHeader().doesNotExist("RateLimit-Policy");
                }
                assertThat(context.getBean(PlainController.class).calls).hasValue(4);
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(decisions(meters, "allowed")).isEqualTo(2);
                assertThat(decisions(meters, "shadow_rejected")).isEqualTo(2);
            }));
    }

    @Test
    void decisionsAreCountedByOutcomeAsForAnnotatedMethods() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).run(withClient((client, context) -> {
            for (int i = 0; i < 3; i++) {
                client.get().uri("/pages/1").exchange();
            }
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(decisions(meters, "allowed")).isEqualTo(2);
            assertThat(decisions(meters, "rejected")).isEqualTo(1);
            assertThat(meters.get("limiter.near_limit").tag("limiter", "pages").counter().count()).isEqualTo(1);
        }));
    }

    @Test
    void everyMatchingRuleDecidesAndTheFirstRejectionWins() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP)
            .withPropertyValues("limiter.limiters.site.algorithm=fixed-window", "limiter.limiters.site.limit=10",
                    "limiter.limiters.site.window=1h", "limiter.rules[1].paths=/**", "limiter.rules[1].limiter=site")
            .run(withClient((client, context) -> {
                client.get().uri("/pages/1").exchange().expectStatus().isOk()
                    .expectHeader().valueEquals("RateLimit-Policy", "\"pages\";q=2;w=60, \"site\";q=10;w=3600")
                    .expectHeader().valueEquals("RateLimit", "\"pages\";r=1;t=60, \"site\";r=9;t=3600");
                client.get().uri("/pages/1").exchange().expectStatus().isOk();
                client.get().uri("/pages/1").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                    .expectHeader().valueEquals("RateLimit", "\"pages\";r=0;t=60");
                client.get().uri("/open").exchange().expectStatus().isOk().expectHeader().valueEquals("RateLimit", "\"site\";r=7;t=3600");
            }));
    }

    @Test
    void principalIsWhomSecurityAuthenticatedBeforeTheRules() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=#principal")
            .run(withClient((client, context) -> {
                client.get().uri("/pages/1").header("X-Test-User", "alice").exchange().expectStatus().isOk();
                client.get().uri("/pages/1").header("X-Test-User", "alice").exchange().expectStatus().isOk();
                client.get().uri("/pages/1").header("X-Test-User", "alice").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
                client.get().uri("/pages/1").header("X-Test-User", "bob").exchange().expectStatus().isOk();
                // Nobody authenticated: the key is missing.
                client.get().uri("/pages/1").exchange().expectStatus().isBadRequest();
            }));
    }

    @Test
    void missingKeyIsABadRequestThatNeverReachesTheHandler() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=#request.headers.getFirst('X-Api-Key')")
            .run(withClient((client, context) -> {
                client.get().uri("/pages/1").exchange().expectStatus().isBadRequest().expectBody().jsonPath("$.limiter").isEqualTo("pages");
                assertThat(context.getBean(PlainController.class).calls).hasValue(0);
                assertThat(decisions(context.getBean(MeterRegistry.class), "error")).isEqualTo(1);
                client.get().uri("/pages/1").header("X-Api-Key", "k1").exchange().expectStatus().isOk();
            }));
    }

    @Test
    void applicationsOwnExceptionHandlerAnswersRuleRejections() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withUserConfiguration(OwnAnswer.class).run(withClient((client, context) -> {
            client.get().uri("/pages/1").exchange();
            client.get().uri("/pages/1").exchange();
            client.get().uri("/pages/1").exchange().expectStatus().isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectBody(String.class).isEqualTo("busy: pages");
        }));
    }

    @Test
    void filterIsOrderedAfterSpringSecurityAndTheOrderIsConfigurable() {
        this.contextRunner.run((context) -> assertThat(context.getBean(RateLimitRuleWebFilter.class).getOrder())
            .isEqualTo(RateLimitRuleWebFilter.DEFAULT_ORDER)
            .isEqualTo(-90));
        this.contextRunner.withPropertyValues("limiter.rule-filter-order=5")
            .run((context) -> assertThat(context.getBean(RateLimitRuleWebFilter.class).getOrder()).isEqualTo(5));
    }

    private static double decisions(MeterRegistry meters, String outcome) {
        return meters.find("limiter.decisions").tags("limiter", "pages", "outcome", outcome).counters().stream()
            .mapToDouble(Counter::count)
            .sum();
    }

    private static WebTestClient.RequestHeadersSpec<?> get(WebTestClient client, String uri, String peer) {
        return client.get().uri(uri).header("X-Test-Peer", peer);
    }

    private static ContextConsumer<AssertableReactiveWebApplicationContext> withClient(
            BiConsumer<WebTestClient, AssertableReactiveWebApplicationContext> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            test.accept(WebTestClient.bindToApplicationContext(context).build(), context);
        };
    }

    /** Plays the network (the socket's peer) first, and Spring Security at its order (-100): X-Test-User is authenticated. */
    @Configuration(proxyBeanMethods = false)
    @Import({ TestNetwork.Peer.class, TestNetwork.Security.class })
    static class TestNetwork {

        @Component
        @Order(Ordered.HIGHEST_PRECEDENCE)
        static class Peer implements WebFilter {

            @Override
            public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
                // A test client binds no socket: without a peer, the client is this machine.
                String peer = exchange.getRequest().getHeaders().getFirst("X-Test-Peer");
                InetSocketAddress address = address((peer != null) ? peer : "127.0.0.1");
                return chain.filter(exchange.mutate().request((request) -> request.remoteAddress(address)).build());
            }

            private static InetSocketAddress address(String ip) {
                try {
                    return new InetSocketAddress(InetAddress.getByName(ip), 40000);
                }
                catch (UnknownHostException ex) {
                    throw new IllegalArgumentException(ex);
                }
            }
        }

        @Component
        @Order(-100)
        static class Security implements WebFilter {

            @Override
            public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
                String user = exchange.getRequest().getHeaders().getFirst("X-Test-User");
                if (user == null) {
                    return chain.filter(exchange);
                }
                return chain.filter(exchange).contextWrite(ReactiveSecurityContextHolder.withAuthentication(
                        UsernamePasswordAuthenticationToken.authenticated(user, "secret", AuthorityUtils.NO_AUTHORITIES)));
            }
        }
    }

    @RestController
    static class PlainController {

        final AtomicInteger calls = new AtomicInteger();

        @GetMapping("/pages/{id}")
        Mono<String> page(@PathVariable String id) {
            return Mono.fromSupplier(() -> {
                calls.incrementAndGet();
                return "page " + id;
            });
        }

        @PostMapping("/pages/{id}")
        Mono<String> save(@PathVariable String id) {
            return Mono.fromSupplier(() -> {
                calls.incrementAndGet();
                return "saved " + id;
            });
        }

        @GetMapping("/open")
        Mono<String> open() {
            return Mono.just("open");
        }
    }

    @RestControllerAdvice
    static class OwnAnswer {

        @ExceptionHandler(RateLimitExceededException.class)
        ResponseEntity<String> busy(RateLimitExceededException ex) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("busy: " + ex.getLimiterName());
        }
    }
}
