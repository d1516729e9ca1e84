package dev.limiter.autoconfigure.web;

import java.security.Principal;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Limiter behind Spring Security's own web filter chain in WebFlux (HTTP Basic, users in memory): the
 * cases shared with Spring MVC ({@link SpringSecurityCases}).
 */
@RedisTest
@Timeout(60)
class SpringSecurityWebFluxTests extends SpringSecurityCases {

    private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
                WebFluxAutoConfiguration.class, HttpHandlerAutoConfiguration.class, DataRedisAutoConfiguration.class,
                SecurityAutoConfiguration.class, ReactiveWebSecurityAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterWebFluxAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues(PAGES)
        .withBean(VirtualClock.class, () -> new VirtualClock(RateLimitRulesCases.START_OF_AN_HOUR))
        .withUserConfiguration(Users.class, Endpoints.class);

    @Override
    Application application() {
        return WebStack.webFlux(this.contextRunner);
    }

    @Override
    int pageCalls(ApplicationContext context) {
        return context.getBean(Endpoints.class).pageCalls();
    }

    @Override
    int orderCalls(ApplicationContext context) {
        return context.getBean(Endpoints.class).orderCalls();
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
