package dev.limiter.autoconfigure.web;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.Principal;
import java.util.UUID;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.web.WebStack.Application;
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
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Keys from the request in WebFlux, on Redis through its reactive API. The exchange is reachable
 * only in the subscriber's context, so these keys are evaluated on subscription: the cases shared
 * with Spring MVC ({@link RequestKeysCases}), a Flux keyed by the client of its subscription, and
 * Spring Security's authentication in the subscriber's context before the exchange's principal.
 */
@RedisTest
@Timeout(60)
class RequestKeysWebFluxTests extends RequestKeysCases {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + TestRedis.shared().url(), "limiter.key-prefix=webflux-keys-" + UUID.randomUUID(),
                "limiter.redis.timeout=5s", TRUSTED_PROXIES)
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(TestPeer.class, KeyedController.class);

    @Override
    Application application() {
        return WebStack.webFlux(this.contextRunner);
    }

    /** Sees the ServerHttpRequest. */
    @Override
    KeyResolver apiKeyOrIp() {
        return (call) -> {
            ServerHttpRequest request = (ServerHttpRequest) call.request();
            String apiKey = request.getHeaders().getFirst("X-Api-Key");
            return (apiKey != null) ? "key:" + apiKey : "ip:" + call.clientIp();
        };
    }

    @Override
    Class<?> resolvedController() {
        return ResolvedController.class;
    }

    @Test
    void fluxIsKeyedByTheClientOfItsSubscription() {
        application().run((client, context) -> {
            client.get("/ticks").from("2001:db8:1:2::1").send().isOk();
            client.get("/ticks").from("2001:db8:1:2::2").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/ticks").from("2001:db8:1:3::1").send().isOk();
        });
    }

    @Test
    void springSecurityAuthenticationComesBeforeTheExchangesPrincipal() {
        application().run((client, context) -> {
            client.get("/by-user").principal("alice").send().isOk();
            // Spring Security's authentication in the subscriber's context comes before the exchange's principal.
            client.get("/by-user").principal("bob").header("X-Test-Authentication", "alice").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-user").principal("bob").send().isOk();
        });
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
            String peer = exchange.getRequest().getHeaders().getFirst(WebStack.PEER_HEADER);
            String user = exchange.getRequest().getHeaders().getFirst(WebStack.PRINCIPAL_HEADER);
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
