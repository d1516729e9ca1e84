package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.metrics.LimiterMetricsAutoConfiguration;
import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.internal.web.RateLimitRule;
import dev.limiter.spring.internal.web.RateLimitRules;
import dev.limiter.spring.RateLimited;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.internal.web.RateLimitRuleFilter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Rules of limiter.rules in Spring MVC, on Redis, over HTTP (MockMvc with the application's servlet
 * filters, as Spring Boot registers them): the cases shared with WebFlux ({@link RateLimitRulesCases}),
 * and those of the servlet stack alone: HEAD and CORS pre-flight requests, the missing-key policy,
 * cost, a limiter shared with an annotation, max-wait, a rejection nothing answers, and the failure
 * policy while Redis is out.
 */
@RedisTest
@Timeout(60)
class RateLimitRulesWebMvcTests extends RateLimitRulesCases {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterMetricsAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues(PAGES)
        .withBean(VirtualClock.class, () -> new VirtualClock(START_OF_AN_HOUR))
        .withUserConfiguration(PlainController.class);

    @Override
    Application application() {
        return WebStack.mvc(this.contextRunner);
    }

    @Override
    Application authenticatingTestUsers(Application application) {
        return application.withUserConfiguration(FakeSecurityFilter.class);
    }

    @Override
    String header(String name) {
        return "#request.getHeader('" + name + "')";
    }

    @Override
    int pageCalls(ApplicationContext context) {
        return context.getBean(PlainController.class).calls.get();
    }

    @Override
    int ruleFilterOrder(ApplicationContext context) {
        return context.getBean("rateLimitRuleFilter", FilterRegistrationBean.class).getOrder();
    }

    @Override
    int defaultRuleFilterOrder() {
        return RateLimitRuleFilter.DEFAULT_ORDER;
    }

    @AfterEach
    void clearSecurityContext() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void headCountsAsGetWhichSpringRunsForIt() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].methods=GET").run((client, context) -> {
            client.head("/pages/1").send().isOk();
            client.get("/pages/1").send().isOk();
            client.head("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
    }

    @Test
    void corsPreFlightRequestsTakeNothingUnlessTheRuleListsOptions() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).run((client, context) -> {
            for (int i = 0; i < 3; i++) {
                preFlight(client).send().isNotRejected();
            }
            client.get("/pages/1").send().isOk();
            client.get("/pages/1").send().isOk();
            client.get("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].methods=OPTIONS")
            .run((client, context) -> {
                preFlight(client).send();
                preFlight(client).send();
                preFlight(client).send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            });
    }

    private static WebStack.Request preFlight(WebStack.Client client) {
        return client.options("/pages/1").header(HttpHeaders.ORIGIN, "https://shop.example").header(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD, "GET");
    }

    @Test
    void missingKeySkippedByPolicyIsNotLimited() {
        application().withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=#request.getHeader('X-Api-Key')", "limiter.on-missing-key=skip")
            .run((client, context) -> {
                for (int i = 0; i < 3; i++) {
                    client.get("/pages/1").send().isOk().hasNoHeader("RateLimit");
                }
                // Requests with a key are limited all the same.
                client.get("/pages/1").header("X-Api-Key", "k1").send().isOk();
                client.get("/pages/1").header("X-Api-Key", "k1").send().isOk();
                client.get("/pages/1").header("X-Api-Key", "k1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            });
    }

    @Test
    void costTakesThatManyPermits() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].cost=2").run((client, context) -> {
            client.get("/pages/1").send().isOk().hasHeader("RateLimit", "\"pages\";r=0;t=60");
            client.get("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
    }

    @Test
    void ruleSharesTheLimiterOfAnAnnotationThatCompletesIt() {
        application().withPropertyValues("limiter.limiters.shared.limit=2", "limiter.limiters.shared.window=1m",
                "limiter.rules[0].paths=/open", "limiter.rules[0].limiter=shared")
            .withUserConfiguration(AnnotatedController.class)
            .run((client, context) -> {
                // The annotation chose the algorithm, the configuration the limit: the rule decides on that limiter.
                assertThat(context.getBean(RateLimiterRegistry.class).get("shared").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
                client.get("/open").send().isOk().hasHeader("RateLimit", "\"shared\";r=1;t=60");
                client.get("/annotated").send().isOk();
                // One key for all on both sides: the rule's and the annotation's calls share one limit.
                client.get("/open").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            });
    }

    @Test
    void withMaxWaitARequestWaitsForItsTurnInsteadOfBeingRejected() {
        // In memory, on the application's virtual clock, which stands still: the second request comes at the same
        // instant as the first however slowly a loaded machine sends it (on Redis' clock it came after the next
        // permit once), and only max-wait decides between a rejection and a wait.
        String[] bucket = { "limiter.backend=memory", "limiter.limiters.pages.algorithm=token-bucket", "limiter.limiters.pages.limit=20",
                "limiter.limiters.pages.window=1s", "limiter.limiters.pages.burst=1" };
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues(bucket).run((client, context) -> {
            client.get("/pages/1").send().isOk();
            client.get("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
        // The next permit comes 50 ms later: the request reserves it and waits.
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues(bucket)
            .withPropertyValues("limiter.limiters.pages.max-wait=1s")
            .run((client, context) -> {
                client.get("/pages/1").send().isOk();
                client.get("/pages/1").send().isOk();
                assertThat(pageCalls(context)).isEqualTo(2);
            });
    }

    @Test
    void rejectionThatNothingAnswersGetsItsStatusAndRetryAfterWithoutABody() {
        this.contextRunner.run((context) -> {
            RateLimitRules rules = new RateLimitRules(List.of(new RateLimitRule("limiter.rules[0]", List.of("/pages/**"), List.of(), null,
                    null, "pages", null, null, false)), context.getBean(RateLimiterRegistry.class), context.getBean(RateLimitedMethods.class));
            RateLimitRuleFilter filter = new RateLimitRuleFilter(rules, (request, response, handler, ex) -> null);
            List<Integer> statuses = new ArrayList<>();
            MockHttpServletResponse last = null;
            for (int i = 0; i < 3; i++) {
                last = new MockHttpServletResponse();
                MockFilterChain chain = new MockFilterChain();
                filter.doFilter(new MockHttpServletRequest("GET", "/pages/1"), last, chain);
                statuses.add(last.getStatus());
                assertThat(chain.getRequest() != null).as("the request went on").isEqualTo(i < 2);
            }
            assertThat(statuses).containsExactly(200, 200, 429);
            assertThat(last.getHeader(HttpHeaders.RETRY_AFTER)).isEqualTo("60");
            assertThat(last.getContentLength()).isZero();
        });
    }

    @Test
    void failurePolicyDecidesWhileRedisIsOut() {
        TestRedis redis = TestRedis.start();
        try {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
            application().withPropertyValues(PAGES_BY_CLIENT_IP)
                .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.limiters.pages.on-redis-failure=deny")
                .run((client, context) -> {
                    client.get("/pages/1").send().isOk();
                    redis.kill();
                    client.get("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS).hasHeader(HttpHeaders.RETRY_AFTER, "1");
                    assertThat(pageCalls(context)).isEqualTo(1);
                });
        }
        finally {
            redis.close();
        }
    }

    @RestController
    static class PlainController {

        final AtomicInteger calls = new AtomicInteger();

        @GetMapping("/pages/{id}")
        String page(@PathVariable String id) {
            calls.incrementAndGet();
            return "page " + id;
        }

        @PostMapping("/pages/{id}")
        String save(@PathVariable String id) {
            calls.incrementAndGet();
            return "saved " + id;
        }

        @GetMapping("/open")
        String open() {
            return "open";
        }
    }

    @RestController
    static class AnnotatedController {

        @GetMapping("/annotated")
        @RateLimited(name = "shared", algorithm = Algorithm.FIXED_WINDOW)
        String annotated() {
            return "annotated";
        }
    }

    /** Plays Spring Security: authenticates X-Test-User at Spring Security's default filter order. */
    @Configuration(proxyBeanMethods = false)
    static class FakeSecurityFilter {

        @Bean
        FilterRegistrationBean<Filter> fakeSecurity() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(new OncePerRequestFilter() {

                @Override
                protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                        throws ServletException, IOException {
                    String user = request.getHeader("X-Test-User");
                    if (user != null) {
                        SecurityContextHolder.getContext().setAuthentication(
                                UsernamePasswordAuthenticationToken.authenticated(user, "secret", AuthorityUtils.NO_AUTHORITIES));
                    }
                    try {
                        chain.doFilter(request, response);
                    }
                    finally {
                        SecurityContextHolder.clearContext();
                    }
                }
            });
            registration.setOrder(-100);
            return registration;
        }
    }
}
