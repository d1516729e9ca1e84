package dev.limiter.autoconfigure.web;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.metrics.LimiterMetricsAutoConfiguration;
import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.internal.web.RateLimitRuleWebFilter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Rules of limiter.rules in WebFlux, on Redis through its reactive API, over HTTP (WebTestClient with
 * the application's web filters): the cases shared with Spring MVC ({@link RateLimitRulesCases}).
 */
@RedisTest
@Timeout(60)
class RateLimitRulesWebFluxTests extends RateLimitRulesCases {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterMetricsAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues(PAGES)
        .withBean(VirtualClock.class, () -> new VirtualClock(START_OF_AN_HOUR))
        .withUserConfiguration(TestNetwork.class, PlainController.class);

    @Override
    Application application() {
        return WebStack.webFlux(this.contextRunner);
    }

    /** {@link TestNetwork} authenticates them in every application. */
    @Override
    Application authenticatingTestUsers(Application application) {
        return application;
    }

    @Override
    String header(String name) {
        return "#request.headers.getFirst('" + name + "')";
    }

    @Override
    int pageCalls(ApplicationContext context) {
        return context.getBean(PlainController.class).calls.get();
    }

    @Override
    int ruleFilterOrder(ApplicationContext context) {
        return context.getBean(RateLimitRuleWebFilter.class).getOrder();
    }

    @Override
    int defaultRuleFilterOrder() {
        return RateLimitRuleWebFilter.DEFAULT_ORDER;
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
                String peer = exchange.getRequest().getHeaders().getFirst(WebStack.PEER_HEADER);
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
}
