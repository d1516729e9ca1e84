package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterFactory;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Key expressions are compiled by SpEL once they have run often, and evaluate alike before and after,
 * including when a compiled expression meets an argument of another type than it was compiled for.
 */
class KeyExpressionTests {

    /** More calls than SpEL interprets an expression before it compiles it (100). */
    private static final int PAST_COMPILATION = 300;

    @Test
    void aPropertyKeyNamesTheSameKeyBeforeAndAfterItIsCompiled() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Limits.class)) {
            Accounts accounts = context.getBean(Accounts.class);
            for (int i = 0; i < PAST_COMPILATION; i++) {
                accounts.open(new Account("alice"));
            }
            RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("accounts");
            assertThat(limiter.quota("alice").remaining()).isEqualTo(1_000 - PAST_COMPILATION);
        }
    }

    @Test
    void anArgumentOfAnotherTypeAfterCompilationIsStillReadRight() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Limits.class)) {
            Accounts accounts = context.getBean(Accounts.class);
            for (int i = 0; i < PAST_COMPILATION; i++) {
                accounts.open(new Account("alice"));
            }
            // Compiled for Account: a Team has an owner too, which the interpreter reads.
            accounts.open(new Team("bob"));
            accounts.open(new Account("alice"));
            RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("accounts");
            assertThat(limiter.quota("bob").remaining()).isEqualTo(999);
            assertThat(limiter.quota("alice").remaining()).isEqualTo(1_000 - PAST_COMPILATION - 1);
        }
    }

    @Test
    void aMethodCallKeyIsEvaluatedAlikeBeforeAndAfterItIsCompiled() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Limits.class)) {
            Accounts accounts = context.getBean(Accounts.class);
            for (int i = 0; i < PAST_COMPILATION; i++) {
                accounts.close("Carol", i);
            }
            RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("closings");
            assertThat(limiter.quota("carol").remaining()).isEqualTo(1_000 - PAST_COMPILATION);
        }
    }

    public record Account(String owner) {
    }

    public record Team(String owner) {
    }

    public static class Accounts {

        @RateLimited(name = "accounts", key = "#account.owner", limit = 1_000, window = "1h")
        public void open(Object account) {
        }

        @RateLimited(name = "closings", key = "#owner.toLowerCase()", limit = 1_000, window = "1h")
        public void close(String owner, int attempt) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableRateLimiting
    static class Limits {

        @Bean
        RateLimiterFactory rateLimiterFactory() {
            return InMemoryRateLimiterFactory.builder().clock(new VirtualClock()).build();
        }

        @Bean
        RateLimiterRegistry rateLimiterRegistry(RateLimiterFactory factory) {
            return new RateLimiterRegistry(factory);
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }
}
