package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

import dev.limiter.Algorithm;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterRetuner;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;
import org.springframework.util.function.ThrowingConsumer;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Tests of the IETF RateLimit-Policy and RateLimit header fields on Spring MVC responses. */
class RateLimitHeaderFieldsWebMvcTests {

    /** One member of a structured-field list: a quoted string item with integer parameters. */
    private static final Pattern MEMBER = Pattern.compile("\"[A-Za-z0-9._-]+\"(;[a-z]+=\\d+)+");

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterWebMvcAutoConfiguration.class))
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(LimitedController.class);

    @Test
    void allowedResponseCarriesPolicyAndQuota() {
        this.contextRunner.run(withMvc((mvc) -> {
            // Token bucket of 5 per 10 s: one permit taken, back in 2 s.
            assertThat(mvc.get().uri("/orders")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"orders\";q=5;w=10")
                .hasHeader("RateLimit", "\"orders\";r=4;t=2");
            assertThat(mvc.get().uri("/orders")).hasHeader("RateLimit", "\"orders\";r=3;t=4");
        }));
    }

    @Test
    void rejectedResponseCarriesTheFieldsRetryAfterAndTheViolatedLimit() {
        this.contextRunner.run(withMvc((mvc) -> {
            mvc.get().uri("/slow").exchange();
            assertThat(mvc.get().uri("/slow")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit-Policy", "\"slow\";q=1;w=2")
                .hasHeader("RateLimit", "\"slow\";r=0;t=2")
                .hasHeader(HttpHeaders.RETRY_AFTER, "2")
                .bodyJson()
                .hasPathSatisfying("$.violatedLimit", (limit) -> limit.assertThat().isEqualTo("1/1200ms"));
        }));
    }

    @Test
    void burstOfABucketIsTheQuotaOverTheTimeItTakesToRefill() {
        this.contextRunner.run(withMvc((mvc) -> assertThat(mvc.get().uri("/bursty")).hasStatusOk()
            .hasHeader("RateLimit-Policy", "\"bursty\";q=10;w=20")
            .hasHeader("RateLimit", "\"bursty\";r=9;t=2")));
    }

    @Test
    void severalLimitsAreListedAndTheViolatedOneIsReported() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvcTester mvc = MockMvcTester.from(context);
            VirtualClock time = context.getBean(VirtualClock.class);
            MvcTestResult first = mvc.get().uri("/api").exchange();
            assertThat(first).hasStatusOk().hasHeader("RateLimit-Policy", "\"api-1s\";q=2;w=1, \"api-1h\";q=3;w=3600");
            // The per-second limit has the fewest permits left, and is whole again in a second, not an hour.
            assertThat(first).hasHeader("RateLimit", "\"api-1s\";r=1;t=1");
            mvc.get().uri("/api").exchange();
            assertThat(mvc.get().uri("/api")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit", "\"api-1s\";r=0;t=1")
                .hasHeader(HttpHeaders.RETRY_AFTER, "1")
                .bodyJson()
                .hasPathSatisfying("$.violatedLimit", (limit) -> limit.assertThat().isEqualTo("2/1s"));
            time.advance(Duration.ofSeconds(1));
            assertThat(mvc.get().uri("/api")).hasStatusOk();
            time.advance(Duration.ofSeconds(1));
            // Now the hourly limit rejects: Retry-After is its reset, not the next second.
            MvcTestResult hourly = mvc.get().uri("/api").exchange();
            assertThat(hourly).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .bodyJson()
                .hasPathSatisfying("$.violatedLimit", (limit) -> limit.assertThat().isEqualTo("3/1h"));
            long retryAfter = Long.parseLong(hourly.getResponse().getHeader(HttpHeaders.RETRY_AFTER));
            assertThat(retryAfter).isGreaterThan(1).isLessThanOrEqualTo(3600);
            assertThat(hourly.getResponse().getHeader("RateLimit")).isEqualTo("\"api-1h\";r=0;t=" + retryAfter);
        });
    }

    @Test
    void severalLimitsReportTheNamedLimitsOwnReset() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvcTester mvc = MockMvcTester.from(context);
            VirtualClock time = context.getBean(VirtualClock.class);
            // The clock starts on a whole minute plus 20 s; 3 s later the 10 s window ends in 7 s and
            // the minute in 37 s.
            time.advance(Duration.ofSeconds(3));
            assertThat(mvc.get().uri("/search")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"search-10s\";q=5;w=10, \"search-1m\";q=100;w=60")
                .hasHeader("RateLimit", "\"search-10s\";r=4;t=7");
            time.advance(Duration.ofMillis(2500));
            assertThat(mvc.get().uri("/search")).hasHeader("RateLimit", "\"search-10s\";r=3;t=5");
        });
    }

    @Test
    void fieldsAreStructuredFieldListsOfStringItemsWithParameters() {
        this.contextRunner.run(withMvc((mvc) -> {
            for (String uri : new String[] { "/orders", "/api", "/bursty" }) {
                MvcTestResult result = mvc.get().uri(uri).exchange();
                for (String field : new String[] { "RateLimit-Policy", "RateLimit" }) {
                    assertThat(result.getResponse().getHeaders(field)).singleElement().satisfies((value) -> {
                        for (String member : value.split(", ")) {
                            assertThat(member).matches(MEMBER);
                        }
                    });
                }
            }
        }));
    }

    @Test
    void disabledPropertyLeavesTheFieldsOutButKeepsRetryAfter() {
        this.contextRunner.withPropertyValues("limiter.headers.enabled=false").run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/slow")).hasStatusOk().doesNotContainHeader("RateLimit").doesNotContainHeader("RateLimit-Policy");
            assertThat(mvc.get().uri("/slow")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .doesNotContainHeader("RateLimit")
                .doesNotContainHeader("RateLimit-Policy")
                .hasHeader(HttpHeaders.RETRY_AFTER, "2");
        }));
    }

    @Test
    void shadowLimiterAnnouncesNothingAllowedOrWouldBeRejected() {
        // Clients must see no change while a limit is rolled out: no quota they would slow down for.
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/shadow")).hasStatusOk()
                .doesNotContainHeader("RateLimit")
                .doesNotContainHeader("RateLimit-Policy");
            assertThat(mvc.get().uri("/shadow")).as("would be rejected")
                .hasStatusOk()
                .hasBodyTextEqualTo("shadow")
                .doesNotContainHeader("RateLimit")
                .doesNotContainHeader("RateLimit-Policy")
                .doesNotContainHeader(HttpHeaders.RETRY_AFTER);
        }));
    }

    @Test
    void fallbackResponseReportsTheExhaustedQuota() {
        this.contextRunner.run(withMvc((mvc) -> {
            mvc.get().uri("/cached").exchange();
            assertThat(mvc.get().uri("/cached")).hasStatusOk()
                .hasBodyTextEqualTo("from cache")
                .hasHeader("RateLimit", "\"cached\";r=0;t=60");
        }));
    }

    @Test
    void aRetunedLimiterAnnouncesItsNewPolicyAtOnceAllowedOrRejected() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvcTester mvc = MockMvcTester.from(context);
            assertThat(mvc.get().uri("/slow")).hasStatusOk().hasHeader("RateLimit-Policy", "\"slow\";q=1;w=2");
            assertThat(mvc.get().uri("/slow")).hasStatus(HttpStatus.TOO_MANY_REQUESTS).hasHeader("RateLimit-Policy", "\"slow\";q=1;w=2");

            context.getBean(LimiterRetuner.class).retune("slow", Map.of("limit", 2, "window", "4s"));

            assertThat(mvc.get().uri("/slow")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"slow\";q=2;w=4")
                .hasHeader("RateLimit", "\"slow\";r=1;t=2");
            mvc.get().uri("/slow").exchange();
            assertThat(mvc.get().uri("/slow")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit-Policy", "\"slow\";q=2;w=4")
                .hasHeader("RateLimit", "\"slow\";r=0;t=2");
        });
    }

    private static ContextConsumer<AssertableWebApplicationContext> withMvc(ThrowingConsumer<MockMvcTester> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            test.acceptWithException(MockMvcTester.from(context));
        };
    }

    @RestController
    static class LimitedController {

        @GetMapping("/orders")
        @RateLimited(name = "orders", limit = 5, window = "10s")
        String orders() {
            return "orders";
        }

        @GetMapping("/slow")
        @RateLimited(name = "slow", limit = 1, window = "1200ms")
        String slow() {
            return "slow";
        }

        @GetMapping("/bursty")
        @RateLimited(name = "bursty", limit = 5, window = "10s", burst = 10)
        String bursty() {
            return "bursty";
        }

        @GetMapping("/api")
        @RateLimited(name = "api", algorithm = Algorithm.SLIDING_LOG, limits = { "2/1s", "3/1h" })
        String api() {
            return "api";
        }

        @GetMapping("/search")
        @RateLimited(name = "search", algorithm = Algorithm.FIXED_WINDOW, limits = { "5/10s", "100/1m" })
        String search() {
            return "search";
        }

        @GetMapping("/shadow")
        @RateLimited(name = "shadow", limit = 1, window = "1m", shadow = true)
        String shadow() {
            return "shadow";
        }

        @GetMapping("/cached")
        @RateLimited(name = "cached", limit = 1, window = "1m", fallbackMethod = "fromCache")
        String cached() {
            return "fresh";
        }

        String fromCache() {
            return "from cache";
        }

    }

}
