package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.Principal;
import java.util.List;
import java.util.UUID;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.spring.KeyResolver;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.RedisTest;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;
import org.springframework.util.function.ThrowingConsumer;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Keys from the request in Spring MVC, on Redis: clients behind a trusted proxy are limited
 * separately, a spoofed X-Forwarded-For from an untrusted peer gets no bucket of its own, IPv6 clients
 * share their /64; #principal, #request and a KeyResolver bean key calls without method parameters.
 */
@RedisTest
@Timeout(60)
class RequestKeysWebMvcTests {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + TestRedis.shared().url(), "limiter.key-prefix=mvc-keys-" + UUID.randomUUID(),
                "limiter.redis.timeout=5s", "limiter.client-ip.trusted-proxies=10.0.0.0/8, 2001:db8:ffff::/48")
        // Time stands still: one permit per minute stays taken for the whole test.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(KeyedController.class);

    @AfterEach
    void clearSecurityContext() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void clientsBehindATrustedProxyGetSeparateLimits() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(from(mvc.get().uri("/by-ip"), "10.0.0.5").header("X-Forwarded-For", "198.51.100.1")).hasStatusOk();
            assertThat(from(mvc.get().uri("/by-ip"), "10.0.0.5").header("X-Forwarded-For", "198.51.100.2")).hasStatusOk();
            // Through another proxy, after a hop the client added itself: still 198.51.100.1.
            assertThat(from(mvc.get().uri("/by-ip"), "10.9.9.9").header("X-Forwarded-For", "7.7.7.7, 198.51.100.1, 10.0.0.5"))
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(from(mvc.get().uri("/by-ip"), "10.0.0.5").header("X-Forwarded-For", "198.51.100.2"))
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void spoofedForwardedForFromAnUntrustedPeerGetsNoBucketOfItsOwn() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(from(mvc.get().uri("/by-ip"), "203.0.113.9").header("X-Forwarded-For", "1.1.1.1")).hasStatusOk();
            assertThat(from(mvc.get().uri("/by-ip"), "203.0.113.9").header("X-Forwarded-For", "2.2.2.2"))
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(from(mvc.get().uri("/by-ip"), "203.0.113.9")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
        }));
    }

    @Test
    void ipv6ClientsShareTheLimitOfTheirSlash64() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(from(mvc.get().uri("/by-ip"), "2001:db8:1:2::1")).hasStatusOk();
            assertThat(from(mvc.get().uri("/by-ip"), "2001:db8:1:2:ffff::9")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(from(mvc.get().uri("/by-ip"), "2001:db8:ffff::1").header("X-Forwarded-For", "2001:db8:1:2::77"))
                .hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(from(mvc.get().uri("/by-ip"), "2001:db8:1:3::1")).hasStatusOk();
        }));
    }

    @Test
    void principalOfTheRequestKeysTheCall() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/by-user").principal(user("alice"))).hasStatusOk();
            assertThat(mvc.get().uri("/by-user").principal(user("alice"))).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(mvc.get().uri("/by-user").principal(user("bob"))).hasStatusOk();
            // Nobody authenticated: the key is missing, and the call is rejected as a bad request.
            assertThat(mvc.get().uri("/by-user")).hasStatus(HttpStatus.BAD_REQUEST);
        }));
    }

    @Test
    void springSecurityAuthenticationIsThePrincipalByItsNameAndAnonymousIsNobody() {
        this.contextRunner.run(withMvc((mvc) -> {
            // MockMvc calls on this thread, where Spring Security keeps its context.
            SecurityContextHolder.getContext().setAuthentication(UsernamePasswordAuthenticationToken.authenticated("carol", "secret",
                    AuthorityUtils.createAuthorityList("ROLE_USER")));
            assertThat(mvc.get().uri("/by-user").principal(user("alice"))).hasStatusOk();
            assertThat(mvc.get().uri("/by-user")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            SecurityContextHolder.getContext().setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
                    AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
            assertThat(mvc.get().uri("/by-user").principal(user("alice"))).hasStatusOk();
            assertThat(mvc.get().uri("/by-user")).hasStatus(HttpStatus.BAD_REQUEST);
        }));
    }

    @Test
    void requestHeaderKeysTheCall() {
        this.contextRunner.run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/by-api-key").header("X-Api-Key", "k1")).hasStatusOk();
            assertThat(mvc.get().uri("/by-api-key").header("X-Api-Key", "k1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(mvc.get().uri("/by-api-key").header("X-Api-Key", "k2")).hasStatusOk();
        }));
    }

    @Test
    void keyResolverBeanKeysTheCall() {
        this.contextRunner.withBean("apiKeyOrIp", KeyResolver.class, () -> (call) -> {
            HttpServletRequest request = (HttpServletRequest) call.request();
            return (request.getHeader("X-Api-Key") != null) ? "key:" + request.getHeader("X-Api-Key") : "ip:" + call.clientIp();
        }).withUserConfiguration(ResolvedController.class).run(withMvc((mvc) -> {
            assertThat(from(mvc.get().uri("/resolved"), "203.0.113.1")).hasStatusOk();
            assertThat(from(mvc.get().uri("/resolved"), "203.0.113.1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(from(mvc.get().uri("/resolved"), "203.0.113.1").header("X-Api-Key", "k1")).hasStatusOk();
            assertThat(from(mvc.get().uri("/resolved"), "203.0.113.2")).hasStatusOk();
        }));
    }

    @Test
    void unparsableTrustedProxyFailsStartupNamingThePropertyAndValue() {
        this.contextRunner.withPropertyValues("limiter.client-ip.trusted-proxies=10.0.0.0/8, 10.0.0.0/33").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOfSatisfying(LimiterConfigurationException.class, (ex) -> {
                    assertThat(ex.getWhere()).isEqualTo("limiter.client-ip.trusted-proxies[1]");
                    assertThat(ex.getValue()).isEqualTo("10.0.0.0/33");
                    assertThat(ex.getProblem()).contains("0 to 32");
                });
        });
    }

    @Test
    void badIpv6PrefixLengthFailsStartup() {
        this.contextRunner.withPropertyValues("limiter.client-ip.ipv6-prefix-length=129").run((context) -> assertThat(context)
            .getFailure().rootCause().isInstanceOfSatisfying(LimiterConfigurationException.class,
                    (ex) -> assertThat(ex.getWhere()).isEqualTo("limiter.client-ip.ipv6-prefix-length")));
    }

    @Test
    void keyResolverThatIsNoBeanFailsStartup() {
        this.contextRunner.withUserConfiguration(ResolvedController.class).run((context) -> assertThat(context)
            .getFailure().rootCause().isInstanceOfSatisfying(LimiterConfigurationException.class, (ex) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(keyResolver) on ResolvedController.resolved()");
                assertThat(ex.getProblem()).contains("no bean named 'apiKeyOrIp'");
            }));
    }

    @Test
    void keyAndKeyResolverTogetherFailStartup() {
        this.contextRunner.withBean("apiKeyOrIp", KeyResolver.class, () -> (call) -> "x")
            .withUserConfiguration(BothController.class)
            .run((context) -> assertThat(context).getFailure().rootCause().isInstanceOfSatisfying(LimiterConfigurationException.class,
                    (ex) -> assertThat(ex.getAction()).contains("either key or keyResolver")));
    }

    @Test
    void parameterNamedRequestStaysTheParameter() {
        this.contextRunner.withUserConfiguration(ShadowingController.class).run(withMvc((mvc) -> {
            assertThat(mvc.get().uri("/shadowing").param("request", "a")).hasStatusOk();
            assertThat(mvc.get().uri("/shadowing").param("request", "a")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            assertThat(mvc.get().uri("/shadowing").param("request", "b")).hasStatusOk();
        }));
    }

    private static MockMvcRequestBuilder from(MockMvcRequestBuilder request, String peer) {
        request.with((servletRequest) -> {
            servletRequest.setRemoteAddr(peer);
            return servletRequest;
        });
        return request;
    }

    private static Principal user(String name) {
        return () -> name;
    }

    private static ContextConsumer<AssertableWebApplicationContext> withMvc(ThrowingConsumer<MockMvcTester> test) {
        return (context) -> {
            assertThat(context).hasNotFailed();
            test.acceptWithException(MockMvcTester.from(context));
        };
    }

    @RestController
    static class KeyedController {

        @GetMapping("/by-ip")
        @RateLimited(name = "by-ip", key = "#clientIp", limit = 1, window = "60s")
        String byIp() {
            return "ok";
        }

        @GetMapping("/by-user")
        @RateLimited(name = "by-user", key = "#principal", limit = 1, window = "60s")
        String byUser() {
            return "ok";
        }

        @GetMapping("/by-api-key")
        @RateLimited(name = "by-api-key", key = "#request.getHeader('X-Api-Key')", limit = 1, window = "60s")
        String byApiKey() {
            return "ok";
        }
    }

    @RestController
    static class ResolvedController {

        @GetMapping("/resolved")
        @RateLimited(name = "resolved", keyResolver = "apiKeyOrIp", limit = 1, window = "60s")
        String resolved() {
            return "ok";
        }
    }

    @RestController
    static class BothController {

        @GetMapping("/both")
        @RateLimited(name = "both", key = "#clientIp", keyResolver = "apiKeyOrIp", limit = 1, window = "60s")
        String both() {
            return "ok";
        }
    }

    @RestController
    static class ShadowingController {

        @GetMapping("/shadowing")
        @RateLimited(name = "shadowing", key = "#request", limit = 1, window = "60s")
        String shadowing(@org.springframework.web.bind.annotation.RequestParam String request) {
            return List.of(request).get(0);
        }
    }
}
