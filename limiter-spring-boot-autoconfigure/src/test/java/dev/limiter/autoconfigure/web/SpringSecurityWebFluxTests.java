package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.Principal;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Limiter behind Spring Security's own web filter chain in WebFlux (HTTP Basic, users in memory): as
 * {@link SpringSecurityWebMvcTests} for the servlet stack, requests that security turns away take no
 * permits, and {@code #principal} is the user the chain authenticated, in rules and in annotations.
 */
@RedisTest
@Timeout(60)
class SpringSecurityWebFluxTests {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                SecurityAutoConfiguration.class, ReactiveWebSecurityAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues("limiter.limiters.pages.algorithm=fixed-window", "limiter.limiters.pages.limit=2",
                "limiter.limiters.pages.window=1m")
        .withBean(VirtualClock.class, () -> new VirtualClock(RateLimitRulesWebMvcTests.START_OF_AN_HOUR))
        .withUserConfiguration(Users.class, Endpoints.class);

    @Test
    void requestsSecurityTurnsAwayTakeNoPermits() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages")
            .run(withClient((client, endpoints) -> {
                for (int i = 0; i < 3; i++) {
                    client.get().uri("/pages/1").exchange().expectStatus().isUnauthorized();
                    client.get().uri("/pages/1").headers((headers) -> headers.setBasicAuth("alice", "wrong")).exchange()
                        .expectStatus().isUnauthorized();
                }
                // Had the rule run before security, those six would have taken both permits.
                get(client, "/pages/1", "alice").exchange().expectStatus().isOk().expectHeader().valueEquals("RateLimit", "\"pages\";r=1;t=60");
                get(client, "/pages/2", "bob").exchange().expectStatus().isOk().expectHeader().valueEquals("RateLimit", "\"pages\";r=0;t=60");
                get(client, "/pages/3", "alice").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                    .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "60");
                assertThat(endpoints.pageCalls()).isEqualTo(2);
            }));
    }

    @Test
    void ruleKeyedByPrincipalGivesEachAuthenticatedUserTheirOwnLimit() {
        this.contextRunner
            .withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages", "limiter.rules[0].key=#principal")
            .run(withClient((client, endpoints) -> {
                get(client, "/pages/1", "alice").exchange().expectStatus().isOk();
                get(client, "/pages/1", "alice").exchange().expectStatus().isOk();
                get(client, "/pages/1", "alice").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
                get(client, "/pages/1", "bob").exchange().expectStatus().isOk().expectHeader().valueEquals("RateLimit", "\"pages\";r=1;t=60");
            }));
    }

    @Test
    void annotatedMethodKeyedByPrincipalGivesEachAuthenticatedUserTheirOwnLimit() {
        this.contextRunner.run(withClient((client, endpoints) -> {
            get(client, "/orders", "alice").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("orders of alice");
            get(client, "/orders", "alice").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            get(client, "/orders", "bob").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("orders of bob");
            assertThat(endpoints.orderCalls()).isEqualTo(2);
        }));
    }

    @Test
    void anonymousRequestIsNobody() {
        this.contextRunner
            .withPropertyValues("limiter.rules[0].paths=/public/**", "limiter.rules[0].limiter=pages", "limiter.rules[0].key=#principal")
            .run(withClient((client, endpoints) -> {
                client.get().uri("/public/search").exchange().expectStatus().isBadRequest();
                get(client, "/public/search", "alice").exchange().expectStatus().isOk();
            }));
    }

    private static WebTestClient.RequestHeadersSpec<?> get(WebTestClient client, String uri, String user) {
        return client.get().uri(uri).headers((headers) -> headers.setBasicAuth(user, user + "-pw"));
    }

    private static ContextConsumer<AssertableReactiveWebApplicationContext> withClient(BiConsumer<WebTestClient, Endpoints> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            // The application's web filters, Spring Security's chain among them, in their order.
            test.accept(WebTestClient.bindToApplicationContext(context).build(), context.getBean(Endpoints.class));
        };
    }

    /** HTTP Basic for everything but /public/**, with two users. */
    @Configuration(proxyBeanMethods = false)
    static class Users {

        @Bean
        SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
            return http.authorizeExchange((exchanges) -> exchanges.pathMatchers("/public/**").permitAll().anyExchange().authenticated())
                .httpBasic(Customizer.withDefaults())
                .build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
                    User.withUsername("bob").password("{noop}bob-pw").roles("USER").build());
        }
    }

    @RestController
    static class Endpoints {

        // Read through methods: the bean is a proxy (for @RateLimited), whose own fields are never set.
        private final AtomicInteger pageCalls = new AtomicInteger();

        private final AtomicInteger orderCalls = new AtomicInteger();

        int pageCalls() {
            return pageCalls.get();
        }

        int orderCalls() {
            return orderCalls.get();
        }

        @GetMapping("/pages/{id}")
        Mono<String> page(@PathVariable String id) {
            return Mono.fromSupplier(() -> {
                pageCalls.incrementAndGet();
                return "page " + id;
            });
        }

        @GetMapping("/orders")
        @RateLimited(name = "orders", key = "#principal", limit = 1, window = "60s")
        Mono<String> orders(Mono<Principal> user) {
            return user.map((principal) -> {
                orderCalls.incrementAndGet();
                return "orders of " + principal.getName();
            });
        }

        @GetMapping("/public/search")
        Mono<String> search() {
            return Mono.just("results");
        }
    }
}
