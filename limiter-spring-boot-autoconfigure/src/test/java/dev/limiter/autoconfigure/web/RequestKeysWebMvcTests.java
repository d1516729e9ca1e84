package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.web.WebStack.Application;
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
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Keys from the request in Spring MVC, on Redis: the cases shared with WebFlux ({@link RequestKeysCases}),
 * Spring Security's authentication of the calling thread as #principal, a parameter named request, and
 * the start-up failures of client addresses and key resolvers.
 */
@RedisTest
@Timeout(60)
class RequestKeysWebMvcTests extends RequestKeysCases {

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + TestRedis.shared().url(), "limiter.key-prefix=mvc-keys-" + UUID.randomUUID(),
                "limiter.redis.timeout=5s", TRUSTED_PROXIES)
        // Time stands still: one permit per minute stays taken for the whole test.
        .withBean(VirtualClock.class, VirtualClock::new)
        .withUserConfiguration(KeyedController.class);

    @Override
    Application application() {
        return WebStack.mvc(this.contextRunner);
    }

    @Override
    KeyResolver apiKeyOrIp() {
        return (call) -> {
            HttpServletRequest request = (HttpServletRequest) call.request();
            return (request.getHeader("X-Api-Key") != null) ? "key:" + request.getHeader("X-Api-Key") : "ip:" + call.clientIp();
        };
    }

    @Override
    Class<?> resolvedController() {
        return ResolvedController.class;
    }

    @AfterEach
    void clearSecurityContext() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void springSecurityAuthenticationIsThePrincipalByItsNameAndAnonymousIsNobody() {
        application().run((client, context) -> {
            // MockMvc calls on this thread, where Spring Security keeps its context.
            SecurityContextHolder.getContext().setAuthentication(UsernamePasswordAuthenticationToken.authenticated("carol", "secret",
                    AuthorityUtils.createAuthorityList("ROLE_USER")));
            client.get("/by-user").principal("alice").send().isOk();
            client.get("/by-user").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            SecurityContextHolder.getContext().setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
                    AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
            client.get("/by-user").principal("alice").send().isOk();
            client.get("/by-user").send().hasStatus(HttpStatus.BAD_REQUEST);
        });
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
        application().withUserConfiguration(ShadowingController.class).run((client, context) -> {
            client.get("/shadowing?request=a").send().isOk();
            client.get("/shadowing?request=a").send().hasStatus(HttpStatus.TOO_MANY_REQUESTS);
            client.get("/shadowing?request=b").send().isOk();
        });
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
