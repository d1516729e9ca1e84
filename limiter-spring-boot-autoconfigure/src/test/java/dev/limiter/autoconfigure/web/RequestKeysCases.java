package dev.limiter.autoconfigure.web;

import dev.limiter.autoconfigure.web.WebStack.Application;
import dev.limiter.spring.KeyResolver;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

/**
 * The cases of keys from the request that Spring MVC and WebFlux share, on Redis: clients behind a
 * trusted proxy are limited separately, a spoofed X-Forwarded-For from an untrusted peer gets no
 * bucket of its own, IPv6 clients share their /64; #principal, #request and a KeyResolver bean key
 * calls without method parameters. Each stack's subclass supplies its application and resolver.
 */
abstract class RequestKeysCases {

    /** Properties of every application: the trusted proxies. */
    static final String TRUSTED_PROXIES = "limiter.client-ip.trusted-proxies=10.0.0.0/8, 2001:db8:ffff::/48";

    /**
     * The application, on Redis, time standing still (one permit per minute stays taken for the whole
     * test), with {@link #TRUSTED_PROXIES} and a controller limited 1 a minute on GET /by-ip (keyed by
     * #clientIp), /by-user (#principal) and /by-api-key (header X-Api-Key).
     */
    abstract Application application();

    /** The key resolver "apiKeyOrIp": "key:" and header X-Api-Key, else "ip:" and the client's address. */
    abstract KeyResolver apiKeyOrIp();

    /** A controller limited 1 a minute on GET /resolved, keyed by the resolver "apiKeyOrIp". */
    abstract Class<?> resolvedController();

    @Test
    void clientsBehindATrustedProxyGetSeparateLimits() {
        application().run((client, context) -> {
            client.get("/by-ip").from("10.0.0.5").header("X-Forwarded-For", "198.51.100.1").send().isOk();
            client.get("/by-ip").from("10.0.0.5").header("X-Forwarded-For", "198.51.100.2").send().isOk();
            // Through another proxy, after a hop the client added itself: still 198.51.100.1.
            client.get("/by-ip").from("10.9.9.9").header("X-Forwarded-For", "7.7.7.7, 198.51.100.1, 10.0.0.5").send()
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-ip").from("10.0.0.7").header("X-Forwarded-For", "198.51.100.1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-ip").from("10.0.0.5").header("X-Forwarded-For", "198.51.100.2").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
    }

    @Test
    void spoofedForwardedForFromAnUntrustedPeerGetsNoBucketOfItsOwn() {
        application().run((client, context) -> {
            client.get("/by-ip").from("203.0.113.9").header("X-Forwarded-For", "1.1.1.1").send().isOk();
            client.get("/by-ip").from("203.0.113.9").header("X-Forwarded-For", "2.2.2.2").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-ip").from("203.0.113.9").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        });
    }

    @Test
    void ipv6ClientsShareTheLimitOfTheirSlash64() {
        application().run((client, context) -> {
            client.get("/by-ip").from("2001:db8:1:2::1").send().isOk();
            client.get("/by-ip").from("2001:db8:1:2:ffff::9").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-ip").from("2001:db8:ffff::1").header("X-Forwarded-For", "2001:db8:1:2::77").send()
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-ip").from("2001:db8:1:3::1").send().isOk();
        });
    }

    @Test
    void principalOfTheRequestKeysTheCall() {
        application().run((client, context) -> {
            client.get("/by-user").principal("alice").send().isOk();
            client.get("/by-user").principal("alice").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-user").principal("bob").send().isOk();
            // Nobody authenticated: the key is missing, and the call is rejected as a bad request.
            client.get("/by-user").send().hasStatus(HttpStatus.BAD_REQUEST);
        });
    }

    @Test
    void requestHeaderKeysTheCall() {
        application().run((client, context) -> {
            client.get("/by-api-key").header("X-Api-Key", "k1").send().isOk();
            client.get("/by-api-key").header("X-Api-Key", "k1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/by-api-key").header("X-Api-Key", "k2").send().isOk();
        });
    }

    @Test
    void keyResolverBeanKeysTheCallFromThisStacksRequest() {
        application().withBean("apiKeyOrIp", KeyResolver.class, this::apiKeyOrIp).withUserConfiguration(resolvedController())
            .run((client, context) -> {
                client.get("/resolved").from("203.0.113.1").send().isOk();
                client.get("/resolved").from("203.0.113.1").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
                client.get("/resolved").from("203.0.113.1").header("X-Api-Key", "k1").send().isOk();
                client.get("/resolved").from("203.0.113.2").send().isOk();
            });
    }
}
