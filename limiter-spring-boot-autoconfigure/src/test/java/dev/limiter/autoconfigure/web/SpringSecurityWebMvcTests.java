package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.Principal;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Limiter behind Spring Security's own filter chain in Spring MVC (HTTP Basic, users in memory), with
 * the servlet filters ordered as Spring Boot registers them: the cases shared with WebFlux
 * ({@link SpringSecurityCases}), anonymous callers limited by address by a rule that leaves signed-in
 * users alone, and a rule filter ordered before security, which sees no principal.
 */
@RedisTest
@Timeout(60)
class SpringSecurityWebMvcTests extends SpringSecurityCases {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                SecurityAutoConfiguration.class, ServletWebSecurityAutoConfiguration.class, SecurityFilterAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues(PAGES)
        // Time stands still at the start of an hour: a window of a minute lasts the whole test.
        .withBean(VirtualClock.class, () -> new VirtualClock(RateLimitRulesCases.START_OF_AN_HOUR))
        .withUserConfiguration(Users.class, Endpoints.class);

    @Override
    Application application() {
        return WebStack.mvc(this.contextRunner);
    }

    @Override
    int pageCalls(ApplicationContext context) {
        return context.getBean(Endpoints.class).pageCalls();
    }

    @Override
    int orderCalls(ApplicationContext context) {
        return context.getBean(Endpoints.class).orderCalls();
    }

    @Test
    void anonymousCallersAreLimitedByAddressByARuleThatSignedInUsersPass() {
        // Public search: anonymous callers are limited per address; signed-in users are not limited by this rule.
        application()
            .withPropertyValues("limiter.rules[0].paths=/public/**", "limiter.rules[0].limiter=pages", "limiter.rules[0].key=#clientIp",
                    "limiter.rules[0].unless=#principal != null")
            .run((client, context) -> {
                client.get("/public/search").send().isOk();
                client.get("/public/search").send().isOk();
                client.get("/public/search").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
                for (int i = 0; i < 3; i++) {
                    client.get("/public/search").basic("alice", "alice-pw").send().isOk().hasNoHeader("RateLimit");
                }
            });
    }

    @Test
    void ruleFilterOrderedBeforeSecuritySeesNoPrincipal() {
        // What docs/rules.md warns of: with limiter.rule-filter-order below Spring Security's -100 the rule runs first.
        application().withPropertyValues(PAGES_BY_PRINCIPAL).withPropertyValues("limiter.rule-filter-order=-110")
            .run((client, context) -> {
                client.get("/pages/1").basic("alice", "alice-pw").send().hasStatus(HttpStatus.BAD_REQUEST);
                assertThat(pageCalls(context)).isEqualTo(0);
            });
    }

    /** HTTP Basic for everything but /public/**, with two users. */
    @Configuration(proxyBeanMethods = false)
    static class Users {

        @Bean
        SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests((requests) -> requests.requestMatchers("/public/**").permitAll().anyRequest().authenticated())
                .httpBasic(Customizer.withDefaults())
                .build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
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
        String page(@PathVariable String id) {
            pageCalls.incrementAndGet();
            return "page " + id;
        }

        @GetMapping("/orders")
        @RateLimited(name = "orders", key = "#principal", limit = 1, window = "60s")
        String orders(Principal user) {
            orderCalls.incrementAndGet();
            return "orders of " + user.getName();
        }

        @GetMapping("/public/search")
        String search() {
            return "results";
        }
    }
}
