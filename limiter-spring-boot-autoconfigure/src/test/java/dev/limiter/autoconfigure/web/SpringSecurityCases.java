package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.autoconfigure.web.WebStack.Application;

import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * The cases of Limiter behind Spring Security's own filter chain (HTTP Basic, users alice and bob in
 * memory) that Spring MVC and WebFlux share: requests that security turns away take no permits,
 * {@code #principal} is the user the chain authenticated, in rules and in annotations, and an
 * anonymous request is nobody. Each stack's subclass supplies its application.
 */
abstract class SpringSecurityCases {

    /** Limiter "pages": 2 a minute. */
    static final String[] PAGES = { "limiter.limiters.pages.algorithm=fixed-window", "limiter.limiters.pages.limit=2",
            "limiter.limiters.pages.window=1m" };

    /** GET /pages/** limited by limiter "pages" (2 a minute), one limit for every request. */
    static final String[] PAGES_FOR_EVERYONE = { "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages" };

    /** GET /pages/** limited by limiter "pages" (2 a minute) per authenticated user. */
    static final String[] PAGES_BY_PRINCIPAL = { "limiter.rules[0].paths=/pages/**", "limiter.rules[0].limiter=pages",
            "limiter.rules[0].key=#principal" };

    /**
     * The application, on Redis, with {@link #PAGES}, time standing still at the start of an hour (a
     * window of a minute lasts the whole test), security (HTTP Basic for everything but /public/**;
     * alice's password is alice-pw, bob's bob-pw), and endpoints GET /pages/{id} (counted), GET /orders
     * (counted, limited 1 a minute by #principal, answering "orders of" the user) and GET /public/search.
     */
    abstract Application application();

    /** How many requests reached /pages. */
    abstract int pageCalls(ApplicationContext context);

    /** How many requests reached /orders. */
    abstract int orderCalls(ApplicationContext context);

    @Test
    void requestsSecurityTurnsAwayTakeNoPermits() {
        application().withPropertyValues(PAGES_FOR_EVERYONE).run((client, context) -> {
            for (int i = 0; i < 3; i++) {
                client.get("/pages/1").send().hasStatus(HttpStatus.UNAUTHORIZED);
                client.get("/pages/1").basic("alice", "wrong").send().hasStatus(HttpStatus.UNAUTHORIZED);
            }
            // Had the rule run before security, those six would have taken both permits.
            client.get("/pages/1").basic("alice", "alice-pw").send().isOk().hasHeader("RateLimit", "\"pages\";r=1;t=60");
            client.get("/pages/2").basic("bob", "bob-pw").send().isOk().hasHeader("RateLimit", "\"pages\";r=0;t=60");
            client.get("/pages/3").basic("alice", "alice-pw").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader(HttpHeaders.RETRY_AFTER, "60");
            assertThat(pageCalls(context)).isEqualTo(2);
        });
    }

    @Test
    void ruleKeyedByPrincipalGivesEachAuthenticatedUserTheirOwnLimit() {
        application().withPropertyValues(PAGES_BY_PRINCIPAL).run((client, context) -> {
            client.get("/pages/1").basic("alice", "alice-pw").send().isOk();
            client.get("/pages/1").basic("alice", "alice-pw").send().isOk();
            client.get("/pages/1").basic("alice", "alice-pw").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/pages/1").basic("bob", "bob-pw").send().isOk().hasHeader("RateLimit", "\"pages\";r=1;t=60");
        });
    }

    @Test
    void annotatedMethodKeyedByPrincipalGivesEachAuthenticatedUserTheirOwnLimit() {
        application().run((client, context) -> {
            client.get("/orders").basic("alice", "alice-pw").send().isOk().hasBody("orders of alice");
            client.get("/orders").basic("alice", "alice-pw").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/orders").basic("bob", "bob-pw").send().isOk().hasBody("orders of bob");
            assertThat(orderCalls(context)).isEqualTo(2);
        });
    }

    @Test
    void anonymousRequestIsNobody() {
        // Keyed by #principal, an anonymous request has no key: it is refused as a missing key, never shares one.
        application()
            .withPropertyValues("limiter.rules[0].paths=/public/**", "limiter.rules[0].limiter=pages", "limiter.rules[0].key=#principal")
            .run((client, context) -> {
                client.get("/public/search").send().hasStatus(HttpStatus.BAD_REQUEST);
                client.get("/public/search").basic("alice", "alice-pw").send().isOk();
            });
    }
}
