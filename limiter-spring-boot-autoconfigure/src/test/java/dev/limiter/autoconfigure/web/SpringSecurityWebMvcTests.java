package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
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
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.SpringBootMockMvcBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;
import org.springframework.test.web.servlet.setup.DefaultMockMvcBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Limiter behind Spring Security's own filter chain in Spring MVC (HTTP Basic, users in memory), with
 * the servlet filters ordered as Spring Boot registers them: requests that security turns away take no
 * permits, {@code #principal} is the user the chain authenticated, in rules and in annotations, and an
 * anonymous request is nobody.
 */
@RedisTest
@Timeout(60)
class SpringSecurityWebMvcTests {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                SecurityAutoConfiguration.class, ServletWebSecurityAutoConfiguration.class, SecurityFilterAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues("limiter.limiters.pages.algorithm=fixed-window", "limiter.limiters.pages.limit=2",
                "limiter.limiters.pages.window=1m")
        // Time stands still at the start of an hour: a window of a minute lasts the whole test.
        .withBean(VirtualClock.class, () -> new VirtualClock(RateLimitRulesWebMvcTests.START_OF_AN_HOUR))
        .withUserConfiguration(Users.class, Endpoints.class);

    /** GET /pages/** limited by limiter "pages" (2 a minute), one limit for every request. */
    private static final String[] PAGES_FOR_EVERYONE = { "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages" };

    /** GET /pages/** limited by limiter "pages" (2 a minute) per authenticated user. */
    private static final String[] PAGES_BY_PRINCIPAL = { "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
            "limiter.rules[0].key=#principal" };

    @Test
    void requestsSecurityTurnsAwayTakeNoPermits() {
        this.contextRunner.withPropertyValues(PAGES_FOR_EVERYONE).run(withMvc((mvc, endpoints) -> {
            for (int i = 0; i < 3; i++) {
                assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.UNAUTHORIZED);
                assertThat(basic(mvc.get().uri("/pages/1"), "alice", "wrong")).hasStatus(HttpStatus.UNAUTHORIZED);
            }
            // Had the rule run before security, those six would have taken both permits.
            assertThat(basic(mvc.get().uri("/pages/1"), "alice", "alice-pw")).hasStatusOk().hasHeader("RateLimit", "\"pages\";r=1;t=60");
            assertThat(basic(mvc.get().uri("/pages/2"), "bob", "bob-pw")).hasStatusOk().hasHeader("RateLimit", "\"pages\";r=0;t=60");
            assertThat(basic(mvc.get().uri("/pages/3"), "alice", "alice-pw")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader(HttpHeaders.RETRY_AFTER, "60");
            assertThat(endpoints.pageCalls()).isEqualTo(2);
        }));
    }

    @Test
    void ruleKeyedByPrincipalGivesEachAuthenticatedUserTheirOwnLimit() {
        this.contextRunner.withPropertyValues(PAGES_BY_PRINCIPAL).run(withMvc((mvc, endpoints) -> {
            assertThat(basic(mvc.get().uri("/pages/1"), "alice", "alice-pw")).hasStatusOk();
            assertThat(basic(mvc.get().uri("/pages/1"), "alice", "alice-pw")).hasStatusOk();
            assertThat(basic(mvc.get().uri("/pages/1"), "alice", "alice-pw")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(basic(mvc.get().uri("/pages/1"), "bob", "bob-pw")).hasStatusOk().hasHeader("RateLimit", "\"pages\";r=1;t=60");
        }));
    }

    @Test
    void annotatedMethodKeyedByPrincipalGivesEachAuthenticatedUserTheirOwnLimit() {
        this.contextRunner.run(withMvc((mvc, endpoints) -> {
            assertThat(basic(mvc.get().uri("/orders"), "alice", "alice-pw")).hasStatusOk().hasBodyTextEqualTo("orders of alice");
            assertThat(basic(mvc.get().uri("/orders"), "alice", "alice-pw")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(basic(mvc.get().uri("/orders"), "bob", "bob-pw")).hasStatusOk().hasBodyTextEqualTo("orders of bob");
            assertThat(endpoints.orderCalls()).isEqualTo(2);
        }));
    }

    @Test
    void anonymousRequestIsNobody() {
        // Public search: anonymous callers are limited per address; signed-in users are not limited by this rule.
        this.contextRunner
            .withPropertyValues("limiter.rules[0].paths=/public/**", "limiter.rules[0].limiter=pages", "limiter.rules[0].key=#clientIp",
                    "limiter.rules[0].unless=#principal != null")
            .run(withMvc((mvc, endpoints) -> {
                assertThat(mvc.get().uri("/public/search")).hasStatusOk();
                assertThat(mvc.get().uri("/public/search")).hasStatusOk();
                assertThat(mvc.get().uri("/public/search")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
                for (int i = 0; i < 3; i++) {
                    assertThat(basic(mvc.get().uri("/public/search"), "alice", "alice-pw")).hasStatusOk().doesNotContainHeader("RateLimit");
                }
            }));
        // Keyed by #principal, the same anonymous request has no key: it is refused as a missing key, never shares one.
        this.contextRunner
            .withPropertyValues("limiter.rules[0].paths=/public/**", "limiter.rules[0].limiter=pages", "limiter.rules[0].key=#principal")
            .run(withMvc((mvc, endpoints) -> assertThat(mvc.get().uri("/public/search")).hasStatus(HttpStatus.BAD_REQUEST)));
    }

    @Test
    void ruleFilterOrderedBeforeSecuritySeesNoPrincipal() {
        // What docs/rules.md warns of: with limiter.rule-filter-order below Spring Security's -100 the rule runs first.
        this.contextRunner.withPropertyValues(PAGES_BY_PRINCIPAL).withPropertyValues("limiter.rule-filter-order=-110")
            .run(withMvc((mvc, endpoints) -> {
                assertThat(basic(mvc.get().uri("/pages/1"), "alice", "alice-pw")).hasStatus(HttpStatus.BAD_REQUEST);
                assertThat(endpoints.pageCalls()).isEqualTo(0);
            }));
    }

    private static MockMvcRequestBuilder basic(MockMvcRequestBuilder request, String user, String password) {
        String credentials = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return request.header(HttpHeaders.AUTHORIZATION, "Basic " + credentials);
    }

    private static ContextConsumer<AssertableWebApplicationContext> withMvc(MvcTest test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            // The application's servlet filters, Spring Security's chain among them, in Spring Boot's order.
            DefaultMockMvcBuilder builder = MockMvcBuilders.webAppContextSetup(context);
            new SpringBootMockMvcBuilderCustomizer(context).customize(builder);
            test.run(MockMvcTester.create(builder.build()), context.getBean(Endpoints.class));
        };
    }

    @FunctionalInterface
    interface MvcTest {

        void run(MockMvcTester mvc, Endpoints endpoints) throws Exception;
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
