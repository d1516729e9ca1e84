package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.web.WebStack.Application;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The cases of limiter.rules that Spring MVC and WebFlux share, over HTTP with the application's
 * filters: endpoints without any annotation are limited by path, method, conditions and request
 * keys, with the 429 answer, RateLimit fields, metrics, shadow mode and missing-key policy of
 * annotated methods. Each stack's subclass supplies its application and what differs between stacks.
 */
abstract class RateLimitRulesCases {

    /** 2023-11-14T22:00:00Z, in microseconds. */
    static final long START_OF_AN_HOUR = 1_699_999_200_000_000L;

    /** Properties of every application: trusted proxies, and limiter "pages", 2 a minute. */
    static final String[] PAGES = { "limiter.client-ip.trusted-proxies=10.0.0.0/8", "limiter.limiters.pages.algorithm=fixed-window",
            "limiter.limiters.pages.limit=2", "limiter.limiters.pages.window=1m" };

    /** One rule: GET and POST /pages/** limited per client address by limiter "pages", 2 a minute. */
    static final String[] PAGES_BY_CLIENT_IP = { "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
            "limiter.rules[0].key=#clientIp" };

    /**
     * The application, on Redis, with metrics, time standing still at {@link #START_OF_AN_HOUR} (a
     * window of a minute lasts the whole test, and has all of it left), the properties {@link #PAGES},
     * and a controller with GET and POST /pages/{id} (counted) and GET /open.
     */
    abstract Application application();

    /** The application, with a filter at Spring Security's order that authenticates the user named in header X-Test-User. */
    abstract Application authenticatingTestUsers(Application application);

    /** The expression of a request's header in this stack's rules. */
    abstract String header(String name);

    /** How many requests reached the controller's /pages endpoints. */
    abstract int pageCalls(ApplicationContext context);

    /** The order of the rules' filter. */
    abstract int ruleFilterOrder(ApplicationContext context);

    /** The default order of this stack's rule filter. */
    abstract int defaultRuleFilterOrder();

    @Test
    void ruleLimitsAnEndpointWithoutAnnotationAndRejectedRequestsNeverReachIt() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).run((client, context) -> {
            client.get("/pages/1").from("203.0.113.1").send().isOk()
                .hasHeader("RateLimit-Policy", "\"pages\";q=2;w=60")
                .hasHeader("RateLimit", "\"pages\";r=1;t=60");
            client.get("/pages/2").from("203.0.113.1").send().isOk().hasHeader("RateLimit", "\"pages\";r=0;t=60");
            client.get("/pages/3").from("203.0.113.1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader(HttpHeaders.RETRY_AFTER, "60")
                .hasHeader("RateLimit-Policy", "\"pages\";q=2;w=60")
                .hasHeader("RateLimit", "\"pages\";r=0;t=60")
                .hasJson("$.limiter", "pages")
                .hasJson("$.status", 429)
                .hasJson("$.violatedLimit", "2/1m");
            assertThat(pageCalls(context)).isEqualTo(2);
            // Paths no rule names are not limited, and carry no fields.
            for (int i = 0; i < 3; i++) {
                client.get("/open").from("203.0.113.1").send().isOk().hasNoHeader("RateLimit");
            }
        });
    }

    @Test
    void clientsBehindATrustedProxyKeepSeparateLimits() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).run((client, context) -> {
            for (int i = 0; i < 2; i++) {
                client.get("/pages/1").from("10.0.0.5").header("X-Forwarded-For", "198.51.100.1").send().isOk();
                client.get("/pages/1").from("10.0.0.5").header("X-Forwarded-For", "198.51.100.2").send().isOk();
            }
            // Through another trusted proxy: still the same client.
            client.get("/pages/1").from("10.0.0.7").header("X-Forwarded-For", "198.51.100.1").send()
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            // The proxy itself, and an untrusted peer claiming to forward for a fresh address, are clients of their own.
            client.get("/pages/1").from("10.0.0.5").send().isOk();
            client.get("/pages/1").from("203.0.113.9").header("X-Forwarded-For", "198.51.100.3").send().isOk();
            client.get("/pages/1").from("203.0.113.9").header("X-Forwarded-For", "198.51.100.4").send().isOk();
            client.get("/pages/1").from("203.0.113.9").header("X-Forwarded-For", "198.51.100.5").send()
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
    }

    @Test
    void methodsLimitOnlyThoseMethods() {
        // In any case: "post" is POST.
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.rules[0].methods=post").run((client, context) -> {
            for (int i = 0; i < 4; i++) {
                client.get("/pages/1").send().isOk().hasNoHeader("RateLimit");
            }
            client.post("/pages/1").send().isOk();
            client.post("/pages/1").send().isOk();
            client.post("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
    }

    @Test
    void whenAndUnlessChooseTheRequestsTheRuleAppliesTo() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP)
            .withPropertyValues("limiter.rules[0].when=" + header("X-Plan") + " == 'free'", "limiter.rules[0].unless=#clientIp == '10.0.0.9'")
            .run((client, context) -> {
                for (int i = 0; i < 3; i++) {
                    client.get("/pages/1").header("X-Plan", "pro").send().isOk().hasNoHeader("RateLimit");
                    client.get("/pages/1").from("10.0.0.9").header("X-Plan", "free").send().isOk();
                }
                client.get("/pages/1").header("X-Plan", "free").send().isOk();
                client.get("/pages/1").header("X-Plan", "free").send().isOk();
                client.get("/pages/1").header("X-Plan", "free").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            });
    }

    @Test
    void aRulePicksThePlanOfItsLimiterPerRequest() {
        application().withPropertyValues("limiter.limiters.tiers.algorithm=fixed-window", "limiter.limiters.tiers.plan=" + header("X-Plan"),
                "limiter.limiters.tiers.default-plan=free", "limiter.limiters.tiers.plans.free.limit=1",
                "limiter.limiters.tiers.plans.free.window=1m", "limiter.limiters.tiers.plans.pro.limit=3",
                "limiter.limiters.tiers.plans.pro.window=1m", "limiter.limiters.tiers.plans.internal.unlimited=true",
                "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=tiers", "limiter.rules[0].key=" + header("X-User"))
            .run((client, context) -> {
                // No X-Plan: the default plan, free, 1 a minute.
                client.get("/pages/1").header("X-User", "alice").send().isOk().hasHeader("RateLimit-Policy", "\"tiers\";q=1;w=60");
                client.get("/pages/1").header("X-User", "alice").header("X-Plan", "free").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
                // Pro counts afresh, 3 a minute.
                for (int i = 0; i < 3; i++) {
                    client.get("/pages/1").header("X-User", "alice").header("X-Plan", "pro").send().isOk()
                        .hasHeader("RateLimit-Policy", "\"tiers\";q=3;w=60");
                }
                client.get("/pages/1").header("X-User", "alice").header("X-Plan", "pro").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
                for (int i = 0; i < 5; i++) {
                    client.get("/pages/1").header("X-User", "alice").header("X-Plan", "internal").send().isOk().hasNoHeader("RateLimit");
                }
                assertThat(pageCalls(context)).isEqualTo(1 + 3 + 5);
            });
    }

    @Test
    void shadowLimiterLetsRejectedRequestsThroughWithoutFieldsAndCountsThem() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withPropertyValues("limiter.limiters.pages.shadow=true")
            .run((client, context) -> {
                for (int i = 0; i < 4; i++) {
                    client.get("/pages/1").send().isOk().hasNoHeader("RateLimit").hasNoHeader("RateLimit-Policy");
                }
                assertThat(pageCalls(context)).isEqualTo(4);
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(decisions(meters, "allowed")).isEqualTo(2);
                assertThat(decisions(meters, "shadow_rejected")).isEqualTo(2);
            });
    }

    @Test
    void decisionsAreCountedByOutcomeAsForAnnotatedMethods() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).run((client, context) -> {
            for (int i = 0; i < 3; i++) {
                client.get("/pages/1").send();
            }
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(decisions(meters, "allowed")).isEqualTo(2);
            assertThat(decisions(meters, "rejected")).isEqualTo(1);
            // The second allowed request left nothing of the limit.
            assertThat(meters.get("limiter.near_limit").tag("limiter", "pages").counter().count()).isEqualTo(1);
        });
    }

    @Test
    void everyMatchingRuleDecidesAndTheFirstRejectionWins() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP)
            .withPropertyValues("limiter.limiters.site.algorithm=fixed-window", "limiter.limiters.site.limit=10",
                    "limiter.limiters.site.window=1h", "limiter.rules[1].paths=/**", "limiter.rules[1].limiter=site")
            .run((client, context) -> {
                // Both limiters allowed it: each is a member of both fields.
                client.get("/pages/1").send().isOk()
                    .hasHeader("RateLimit-Policy", "\"pages\";q=2;w=60, \"site\";q=10;w=3600")
                    .hasHeader("RateLimit", "\"pages\";r=1;t=60, \"site\";r=9;t=3600");
                client.get("/pages/1").send().isOk();
                // Rejected by the first rule: the second takes nothing.
                client.get("/pages/1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS).hasHeader("RateLimit", "\"pages\";r=0;t=60");
                client.get("/open").send().isOk().hasHeader("RateLimit", "\"site\";r=7;t=3600");
                RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
                assertThat(registry.get("site").quota("").remaining()).isEqualTo(7);
            });
    }

    @Test
    void principalIsWhomSecurityAuthenticatedBeforeTheRules() {
        authenticatingTestUsers(application()).withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=#principal")
            .run((client, context) -> {
                client.get("/pages/1").header("X-Test-User", "alice").send().isOk();
                client.get("/pages/1").header("X-Test-User", "alice").send().isOk();
                client.get("/pages/1").header("X-Test-User", "alice").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
                client.get("/pages/1").header("X-Test-User", "bob").send().isOk();
                // Nobody authenticated: the key is missing.
                client.get("/pages/1").send().hasStatus(HttpStatus.BAD_REQUEST);
            });
    }

    @Test
    void missingKeyIsABadRequestThatNeverReachesTheHandler() {
        application().withPropertyValues("limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
                "limiter.rules[0].key=" + header("X-Api-Key"))
            .run((client, context) -> {
                client.get("/pages/1").send().hasStatus(HttpStatus.BAD_REQUEST).hasJson("$.limiter", "pages");
                assertThat(pageCalls(context)).isEqualTo(0);
                assertThat(decisions(context.getBean(MeterRegistry.class), "error")).isEqualTo(1);
                client.get("/pages/1").header("X-Api-Key", "k1").send().isOk();
            });
    }

    @Test
    void applicationsOwnExceptionHandlerAnswersRuleRejections() {
        application().withPropertyValues(PAGES_BY_CLIENT_IP).withUserConfiguration(OwnAnswer.class).run((client, context) -> {
            client.get("/pages/1").send();
            client.get("/pages/1").send();
            client.get("/pages/1").send().hasStatus(HttpStatus.SERVICE_UNAVAILABLE).hasBody("busy: pages");
        });
    }

    @Test
    void filterIsOrderedAfterSpringSecurityAndTheOrderIsConfigurable() {
        application().runContext((context) -> assertThat(ruleFilterOrder(context)).isEqualTo(defaultRuleFilterOrder()).isEqualTo(-90));
        application().withPropertyValues("limiter.rule-filter-order=5")
            .runContext((context) -> assertThat(ruleFilterOrder(context)).isEqualTo(5));
    }

    static double decisions(MeterRegistry meters, String outcome) {
        return meters.find("limiter.decisions").tags("limiter", "pages", "outcome", outcome).counters().stream()
            .mapToDouble(Counter::count)
            .sum();
    }

    @RestControllerAdvice
    static class OwnAnswer {

        @ExceptionHandler(RateLimitExceededException.class)
        ResponseEntity<String> busy(RateLimitExceededException ex) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("busy: " + ex.getLimiterName());
        }
    }
}
