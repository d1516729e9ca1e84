package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.Principal;
import java.util.UUID;
import java.util.function.Consumer;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.spring.KeyResolver;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Keys from the request in WebFlux, on Redis through its reactive API. The exchange is reachable
 * only in the subscriber's context, so these keys are evaluated on subscription: clients behind a
 * trusted proxy are limited separately, a spoofed X-Forwarded-For from an untrusted peer gets no
 * bucket of its own, and #principal, #request and a KeyResolver work as in Spring MVC.
 */
@RedisTest
@Timeout(60)
class RequestKeysWebFluxTests {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + TestRedis.shared().url(), "limiter.key-prefix=webflux-keys-" + UUID.randomUUID(),
                "limiter.redis.timeout=5s", "limiter.client-ip.trusted-proxies=10.0.0.0/8, 2001:db8:ffff::/48")
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(TestPeer.class, KeyedController.class);

    @Test
    void clientsBehindATrustedProxyGetSeparateLimits() {
        this.contextRunner.run(withClient((client) -> {
            get(client, "/by-ip", "10.0.0.5").header("X-Forwarded-For", "198.51.100.1").exchange().expectStatus().isOk();
            get(client, "/by-ip", "10.0.0.5").header("X-Forwarded-For", "198.51.100.2").exchange().expectStatus().isOk();
            get(client, "/by-ip", "10.0.0.7").header("X-Forwarded-For", "198.51.100.1").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            get(client, "/by-ip", "10.0.0.5").header("X-Forwarded-For", "198.51.100.2").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void spoofedForwardedForFromAnUntrustedPeerGetsNoBucketOfItsOwn() {
        this.contextRunner.run(withClient((client) -> {
            get(client, "/by-ip", "203.0.113.9").header("X-Forwarded-For", "1.1.1.1").exchange().expectStatus().isOk();
            get(client, "/by-ip", "203.0.113.9").header("X-Forwarded-For", "2.2.2.2").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void fluxIsKeyedByTheClientOfItsSubscription() {
        this.contextRunner.run(withClient((client) -> {
            get(client, "/ticks", "2001:db8:1:2::1").exchange().expectStatus().isOk();
            get(client, "/ticks", "2001:db8:1:2::2").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            get(client, "/ticks", "2001:db8:1:3::1").exchange().expectStatus().isOk();
        }));
    }

    @Test
    void principalOfTheExchangeOrOfSpringSecurityKeysTheCall() {
        this.contextRunner.run(withClient((client) -> {
            client.get().uri("/by-user").header("X-Test-User", "alice").exchange().expectStatus().isOk();
            client.get().uri("/by-user").header("X-Test-User", "alice").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            // Spring Security's authentication in the subscriber's context comes before the exchange's principal.
            client.get().uri("/by-user").header("X-Test-User", "bob").header("X-Test-Authentication", "alice").exchange()
                .expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            client.get().uri("/by-user").header("X-Test-User", "bob").exchange().expectStatus().isOk();
            client.get().uri("/by-user").exchange().expectStatus().isBadRequest();
        }));
    }

    @Test
    void requestHeaderKeysTheCall() {
        this.contextRunner.run(withClient((client) -> {
            client.get().uri("/by-api-key").header("X-Api-Key", "k1").exchange().expectStatus().isOk();
            client.get().uri("/by-api-key").header("X-Api-Key", "k1").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            client.get().uri("/by-api-key").header("X-Api-Key", "k2").exchange().expectStatus().isOk();
        }));
    }

    @Test
    void keyResolverSeesTheServerHttpRequest() {
        this.contextRunner.withBean("apiKeyOrIp", KeyResolver.class, () -> (call) -> {
            ServerHttpRequest request = (ServerHttpRequest) call.request();
            String apiKey = request.getHeaders().getFirst("X-Api-Key");
            return (apiKey != null) ? "key:" + apiKey : "ip:" + call.clientIp();
        }).withUserConfiguration(ResolvedController.class).run(withClient((client) -> {
            get(client, "/resolved", "203.0.113.1").exchange().expectStatus().isOk();
            get(client, "/resolved", "203.0.113.1").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
            get(client, "/resolved", "203.0.113.1").header("X-Api-Key", "k1").exchange().expectStatus().isOk();
            get(client, "/resolved", "203.0.113.2").exchange().expectStatus().isOk();
        }));
    }

    private static WebTestClient.RequestHeadersSpec<?> get(WebTestClient client, String uri, String peer) {
        return client.get().uri(uri).header("X-Test-Peer", peer);
    }

    private static ContextConsumer<AssertableReactiveWebApplicationContext> withClient(Consumer<WebTestClient> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            test.accept(WebTestClient.bindToApplicationContext(context).build());
        };
    }

    /**
     * Plays the network: the socket peer, the exchange's principal and Spring Security's
     * authentication, from test headers, before the exchange reaches the context filter.
     */
    @Component
    @Order(Ordered.HIGHEST_PRECEDENCE)
    static class TestPeer implements WebFilter {

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            String peer = exchange.getRequest().getHeaders().getFirst("X-Test-Peer");
            String user = exchange.getRequest().getHeaders().getFirst("X-Test-User");
            String authenticated = exchange.getRequest().getHeaders().getFirst("X-Test-Authentication");
            ServerWebExchange mutated = exchange;
            if (peer != null) {
                mutated = mutated.mutate().request((request) -> request.remoteAddress(address(peer))).build();
            }
            if (user != null) {
                Principal principal = () -> user;
                mutated = mutated.mutate().principal(Mono.just(principal)).build();
            }
            Mono<Void> filtered = chain.filter(mutated);
            if (authenticated != null) {
                filtered = filtered.contextWrite(ReactiveSecurityContextHolder.withAuthentication(
                        UsernamePasswordAuthenticationToken.authenticated(authenticated, "secret", AuthorityUtils.NO_AUTHORITIES)));
            }
            return filtered;
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

    @RestController
    static class KeyedController {

        @GetMapping("/by-ip")
        @RateLimited(name = "by-ip", key = "#clientIp", limit = 1, window = "60s")
        Mono<String> byIp() {
            return Mono.just("ok");
        }

        @GetMapping("/ticks")
        @RateLimited(name = "ticks", key = "#clientIp", limit = 1, window = "60s")
        Flux<Integer> ticks() {
            return Flux.just(1, 2, 3);
        }

        @GetMapping("/by-user")
        @RateLimited(name = "by-user", key = "#principal", limit = 1, window = "60s")
        Mono<String> byUser() {
            return Mono.just("ok");
        }

        @GetMapping("/by-api-key")
        @RateLimited(name = "by-api-key", key = "#request.headers.getFirst('X-Api-Key')", limit = 1, window = "60s")
        Mono<String> byApiKey() {
            return Mono.just("ok");
        }
    }

    @RestController
    static class ResolvedController {

        @GetMapping("/resolved")
        @RateLimited(name = "resolved", keyResolver = "apiKeyOrIp", limit = 1, window = "60s")
        Mono<String> resolved() {
            return Mono.just("ok");
        }
    }
}
