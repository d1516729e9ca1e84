package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Algorithm;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.TestRedisProperties;
import dev.limiter.autoconfigure.metrics.LimiterMetricsAutoConfiguration;
import dev.limiter.spring.internal.web.RateLimitRule;
import dev.limiter.spring.internal.web.RateLimitRules;
import dev.limiter.spring.RateLimited;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.internal.web.RateLimitRuleFilter;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
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
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.SpringBootMockMvcBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;
import org.springframework.test.web.servlet.setup.DefaultMockMvcBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.util.function.ThrowingConsumer;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Rules of limiter.rules in Spring MVC, on Redis, over HTTP (MockMvc with the application's servlet
 * filters, as Spring Boot registers them): endpoints without any annotation are limited by path,
 * method, conditions and request keys, with the 429 answer, RateLimit fields, metrics, shadow mode,
 * missing-key and failure policies of annotated methods.
 */
@RedisTest
@Timeout(60)
class RateLimitRulesWebMvcTests {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterMetricsAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues(TestRedisProperties.withKeyPrefix(TestRedisProperties.uniqueKeyPrefix()))
        .withPropertyValues("limiter.client-ip.trusted-proxies=10.0.0.0/8", "limiter.limiters.pages.algorithm=fixed-window",
                "limiter.limiters.pages.limit=2", "limiter.limiters.pages.window=1m")
        // Time stands still at the start of an hour: a window of a minute lasts the whole test, and has all of it left.
        .withBean(VirtualClock.class, () -> new VirtualClock(START_OF_AN_HOUR))
        .withUserConfiguration(PlainController.class);

    /** 2023-11-14T22:00:00Z, in microseconds. */
    static final long START_OF_AN_HOUR = 1_699_999_200_000_000L;

    /** One rule: GET and POST /pages/** limited per client address by limiter "pages", 2 a minute. */
    private static final String[] PAGES_BY_CLIENT_IP = { "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
            "limiter.rules[0].key=#clientIp" };

    @AfterEach
    void clearSecurityContext() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void ruleLimitsAnEndpointWithoutAnnotationAndRejectedRequestsNeverReachIt() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).run(withMvc((mvc, context) -> {
            assertThat(from(mvc.get().uri("/pages/1"), "203.0.113.1")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"pages\";q=2;w=60")
                .hasHeader("RateLimit", "\"pages\";r=1;t=60");
            assertThat(from(mvc.get().uri("/pages/2"), "203.0.113.1")).hasStatusOk().hasHeader("RateLimit", "\"pages\";r=0;t=60");
            assertThat(from(mvc.get().uri("/pages/3"), "203.0.113.1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader(HttpHeaders.RETRY_AFTER, "60")
                .hasHeader("RateLimit-Policy", "\"pages\";q=2;w=60")
                .hasHeader("RateLimit", "\"pages\";r=0;t=60")
                .bodyJson()
                .hasPathSatisfying("$.limiter", (limiter) -> limiter.assertThat().isEqualTo("pages"))
                .hasPathSatisfying("$.status", (status) -> status.assertThat().isEqualTo(429))
                .hasPathSatisfying("$.violatedLimit", (limit) -> limit.assertThat().isEqualTo("2/1m"));
            assertThat(context.getBean(PlainController.class).calls).hasValue(2);
            // Paths no rule names are not limited, and carry no fields.
            for (int i = 0; i < 3; i++) {
                assertThat(from(mvc.get().uri("/open"), "203.0.113.1")).hasStatusOk().doesNotContainHeader("RateLimit");
            }
        }));
    }

    @Test
    void clientsBehindATrustedProxyKeepSeparateLimits() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).run(withMvc((mvc, context) -> {
            for (int i = 0; i < 2; i++) {
                assertThat(from(mvc.get().uri("/pages/1"), "10.0.0.5").header("X-Forwarded-For", "198.51.100.1")).hasStatusOk();
                assertThat(from(mvc.get().uri("/pages/1"), "10.0.0.5").header("X-Forwarded-For", "198.51.100.2")).hasStatusOk();
            }
            assertThat(from(mvc.get().uri("/pages/1"), "10.0.0.5").header("X-Forwarded-For", "198.51.100.1"))
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            // The proxy itself, and an untrusted peer claiming to forward for a fresh address, are clients of their own.
            assertThat(from(mvc.get().uri("/pages/1"), "10.0.0.5")).hasStatusOk();
            assertThat(from(mvc.get().uri("/pages/1"), "203.0.113.9").header("X-Forwarded-For", "198.51.100.3")).hasStatusOk();
            assertThat(from(mvc.get().uri("/pages/1"), "203.0.113.9").header("X-Forwarded-For", "198.51.100.4")).hasStatusOk();
            assertThat(from(mvc.get().uri("/pages/1"), "203.0.113.9").header("X-Forwarded-For", "198.51.100.5"))
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void methodsLimitOnlyThoseMethods() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].methods=post").run(withMvc((mvc, context) -> {
            for (int i = 0; i < 4; i++) {
                assertThat(mvc.get().uri("/pages/1")).hasStatusOk().doesNotContainHeader("RateLimit");
            }
            assertThat(mvc.post().uri("/pages/1")).hasStatusOk();
            assertThat(mvc.post().uri("/pages/1")).hasStatusOk();
            assertThat(mvc.post().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void headCountsAsGetWhichSpringRunsForIt() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].methods=GET").run(withMvc((mvc, context) -> {
            assertThat(mvc.head().uri("/pages/1")).hasStatusOk();
            assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
            assertThat(mvc.head().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void corsPreFlightRequestsTakeNothingUnlessTheRuleListsOptions() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).run(withMvc((mvc, context) -> {
            for (int i = 0; i < 3; i++) {
                assertThat(preFlight(mvc).exchange().getResponse().getStatus()).isNotEqualTo(HttpStatus.TOO_MANY_REQUESTS.value());
            }
            assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
            assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
            assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].methods=OPTIONS")
            .run(withMvc((mvc, context) -> {
                preFlight(mvc).exchange();
                preFlight(mvc).exchange();
                assertThat(preFlight(mvc)).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            }));
    }

    private static MockMvcRequestBuilder preFlight(MockMvcTester mvc) {
        return mvc.options().uri("/pages/1").header(HttpHeaders.ORIGIN, "https://shop.example")
            .header(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD, "GET");
    }

    @Test
    void whenAndUnlessChooseTheRequestsTheRuleAppliesTo() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP)
            .withPropertyValues("limiter.rules[0].when=#request.getHeader('X-Plan') == 'free'", "limiter.rules[0].unless=#clientIp == '10.0.0.9'")
            .run(withMvc((mvc, context) -> {
                for (int i = 0; i < 3; i++) {
                    assertThat(mvc.get().uri("/pages/1").header("X-Plan", "pro")).hasStatusOk().doesNotContainHeader("RateLimit");
                    assertThat(from(mvc.get().uri("/pages/1"), "10.0.0.9").header("X-Plan", "free")).hasStatusOk();
                }
                assertThat(mvc.get().uri("/pages/1").header("X-Plan", "free")).hasStatusOk();
                assertThat(mvc.get().uri("/pages/1").header("X-Plan", "free")).hasStatusOk();
                assertThat(mvc.get().uri("/pages/1").header("X-Plan", "free")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            }));
    }

    @Test
    void shadowLimiterLetsRejectedRequestsThroughWithoutFieldsAndCountsThem() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.limiters.pages.shadow=true")
            .run(withMvc((mvc, context) -> {
                for (int i = 0; i < 4; i++) {
                    assertThat(mvc.get().uri("/pages/1")).hasStatusOk().doesNotContainHeader("RateLimit")
                        .doesNotContainHeader("RateLimit-Policy");
                }
                assertThat(context.getBean(PlainController.class).calls).hasValue(4);
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(decisions(meters, "allowed")).isEqualTo(2);
                assertThat(decisions(meters, "shadow_rejected")).isEqualTo(2);
            }));
    }

    @Test
    void decisionsAreCountedByOutcomeAsForAnnotatedMethods() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).run(withMvc((mvc, context) -> {
            mvc.get().uri("/pages/1").exchange();
            mvc.get().uri("/pages/1").exchange();
            mvc.get().uri("/pages/1").exchange();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(decisions(meters, "allowed")).isEqualTo(2);
            assertThat(decisions(meters, "rejected")).isEqualTo(1);
            // The second allowed request left nothing of the limit.
            assertThat(meters.get("limiter.near_limit").tag("limiter", "pages").counter().count()).isEqualTo(1);
        }));
    }

    @Test
    void everyMatchingRuleDecidesAndTheFirstRejectionWins() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP)
            .withPropertyValues("limiter.limiters.site.algorithm=fixed-window", "limiter.limiters.site.limit=10",
                    "limiter.limiters.site.window=1h", "limiter.rules[1].paths=/**", "limiter.rules[1].limiter=site")
            .run(withMvc((mvc, context) -> {
                // Both limiters allowed it: each is a member of both fields.
                assertThat(mvc.get().uri("/pages/1")).hasStatusOk()
                    .hasHeader("RateLimit-Policy", "\"pages\";q=2;w=60, \"site\";q=10;w=3600")
                    .hasHeader("RateLimit", "\"pages\";r=1;t=60, \"site\";r=9;t=3600");
                assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
                // Rejected by the first rule: the second takes nothing.
                assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                    .hasHeader("RateLimit", "\"pages\";r=0;t=60");
                assertThat(mvc.get().uri("/open")).hasStatusOk().hasHeader("RateLimit", "\"site\";r=7;t=3600");
                RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
                assertThat(registry.get("site").quota("").remaining()).isEqualTo(7);
            }));
    }

    @Test
    void principalIsWhomSecurityAuthenticatedBeforeTheRules() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=#principal")
            .withUserConfiguration(FakeSecurityFilter.class)
            .run(withMvc((mvc, context) -> {
                assertThat(mvc.get().uri("/pages/1").header("X-Test-User", "alice")).hasStatusOk();
                assertThat(mvc.get().uri("/pages/1").header("X-Test-User", "alice")).hasStatusOk();
                assertThat(mvc.get().uri("/pages/1").header("X-Test-User", "alice")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
                assertThat(mvc.get().uri("/pages/1").header("X-Test-User", "bob")).hasStatusOk();
            }));
    }

    @Test
    void missingKeyIsABadRequestThatNeverReachesTheHandler() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=#request.getHeader('X-Api-Key')")
            .run(withMvc((mvc, context) -> {
                assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.BAD_REQUEST)
                    .bodyJson()
                    .hasPathSatisfying("$.limiter", (limiter) -> limiter.assertThat().isEqualTo("pages"));
                assertThat(context.getBean(PlainController.class).calls).hasValue(0);
                assertThat(decisions(context.getBean(MeterRegistry.class), "error")).isEqualTo(1);
                assertThat(mvc.get().uri("/pages/1").header("X-Api-Key", "k1")).hasStatusOk();
            }));
    }

    @Test
    void missingKeySkippedByPolicyIsNotLimited() {
        this.contextRunner.withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=#request.getHeader('X-Api-Key')", "limiter.on-missing-key=skip")
            .run(withMvc((mvc, context) -> {
                for (int i = 0; i < 3; i++) {
                    assertThat(mvc.get().uri("/pages/1")).hasStatusOk().doesNotContainHeader("RateLimit");
                }
                // Requests with a key are limited all the same.
                assertThat(mvc.get().uri("/pages/1").header("X-Api-Key", "k1")).hasStatusOk();
                assertThat(mvc.get().uri("/pages/1").header("X-Api-Key", "k1")).hasStatusOk();
                assertThat(mvc.get().uri("/pages/1").header("X-Api-Key", "k1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            }));
    }

    @Test
    void costTakesThatManyPermits() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].cost=2").run(withMvc((mvc, context) -> {
            assertThat(mvc.get().uri("/pages/1")).hasStatusOk().hasHeader("RateLimit", "\"pages\";r=0;t=60");
            assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void applicationsOwnExceptionHandlerAnswersRuleRejections() {
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withUserConfiguration(OwnAnswer.class).run(withMvc((mvc, context) -> {
            mvc.get().uri("/pages/1").exchange();
            mvc.get().uri("/pages/1").exchange();
            assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.SERVICE_UNAVAILABLE).hasBodyTextEqualTo("busy: pages");
        }));
    }

    @Test
    void ruleSharesTheLimiterOfAnAnnotationThatCompletesIt() {
        this.contextRunner.withPropertyValues("limiter.limiters.shared.limit=2", "limiter.limiters.shared.window=1m",
                "limiter.rules[0].paths=/open", "limiter.rules[0].limiter=shared")
            .withUserConfiguration(AnnotatedController.class)
            .run(withMvc((mvc, context) -> {
                // The annotation chose the algorithm, the configuration the limit: the rule decides on that limiter.
                assertThat(context.getBean(RateLimiterRegistry.class).get("shared").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
                assertThat(mvc.get().uri("/open")).hasStatusOk().hasHeader("RateLimit", "\"shared\";r=1;t=60");
                assertThat(mvc.get().uri("/annotated")).hasStatusOk();
                // One key for all on both sides: the rule's and the annotation's calls share one limit.
                assertThat(mvc.get().uri("/open")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            }));
    }

    @Test
    void withMaxWaitARequestWaitsForItsTurnInsteadOfBeingRejected() {
        String[] bucket = { "limiter.limiters.pages.algorithm=token-bucket", "limiter.limiters.pages.limit=20",
                "limiter.limiters.pages.window=1s", "limiter.limiters.pages.burst=1" };
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues(bucket).run(withMvc((mvc, context) -> {
            assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
            assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
        // The next permit comes 50 ms later: the request reserves it and waits.
        this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues(bucket)
            .withPropertyValues("limiter.limiters.pages.max-wait=1s")
            .run(withMvc((mvc, context) -> {
                assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
                assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
                assertThat(context.getBean(PlainController.class).calls).hasValue(2);
            }));
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
    void filterIsOrderedAfterSpringSecurityAndTheOrderIsConfigurable() {
        this.contextRunner.run((context) -> assertThat(context.getBean("rateLimitRuleFilter", FilterRegistrationBean.class).getOrder())
            .isEqualTo(RateLimitRuleFilter.DEFAULT_ORDER)
            .isEqualTo(-90));
        this.contextRunner.withPropertyValues("limiter.rule-filter-order=5")
            .run((context) -> assertThat(context.getBean("rateLimitRuleFilter", FilterRegistrationBean.class).getOrder()).isEqualTo(5));
    }

    @Test
    void failurePolicyDecidesWhileRedisIsOut() {
        TestRedis redis = TestRedis.start();
        try {
            Assumptions.assumeTrue(redis.source() != TestRedis.Source.URL, "needs a Redis the test may kill");
            this.contextRunner.withPropertyValues(PAGES_BY_CLIENT_IP)
                .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.limiters.pages.on-redis-failure=deny")
                .run(withMvc((mvc, context) -> {
                    assertThat(mvc.get().uri("/pages/1")).hasStatusOk();
                    redis.kill();
                    assertThat(mvc.get().uri("/pages/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS).hasHeader(HttpHeaders.RETRY_AFTER, "1");
                    assertThat(context.getBean(PlainController.class).calls).hasValue(1);
                }));
        }
        finally {
            redis.close();
        }
    }

    private static double decisions(MeterRegistry meters, String outcome) {
        return meters.find("limiter.decisions").tags("limiter", "pages", "outcome", outcome).counters().stream()
            .mapToDouble(Counter::count)
            .sum();
    }

    private static MockMvcRequestBuilder from(MockMvcRequestBuilder request, String peer) {
        return request.with((servletRequest) -> {
            servletRequest.setRemoteAddr(peer);
            return servletRequest;
        });
    }

    /** MockMvc with the servlet filters of the context, in their order, as @AutoConfigureMockMvc has it. */
    private static ContextConsumer<AssertableWebApplicationContext> withMvc(MvcTest test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            DefaultMockMvcBuilder builder = MockMvcBuilders.webAppContextSetup(context);
            new SpringBootMockMvcBuilderCustomizer(context).customize(builder);
            test.run(MockMvcTester.create(builder.build()), context);
        };
    }

    @FunctionalInterface
    interface MvcTest {

        void run(MockMvcTester mvc, AssertableWebApplicationContext context) throws Exception;
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

    @RestControllerAdvice
    static class OwnAnswer {

        @ExceptionHandler(RateLimitExceededException.class)
        ResponseEntity<String> busy(RateLimitExceededException ex) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("busy: " + ex.getLimiterName());
        }
    }
}
