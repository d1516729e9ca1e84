package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Tests of {@code @RateLimited(fallbackMethod)}: resolved and checked at startup, called instead of failing: what Spring Boot's properties change (the interception itself is tested in limiter-spring). */
class FallbackShadowPropertyTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class))
        .withBean(VirtualClock.class, VirtualClock::new);

    @Test
    void shadowModeWinsOverTheFallback() {
        this.contextRunner.withBean(Quotes.class, Quotes::new).withPropertyValues("limiter.limiters.plain.shadow=true").run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.plain("ACME")).isEqualTo("ACME 100");
            assertThat(quotes.plain("ACME")).isEqualTo("ACME 100");
            assertThat(quotes.calls()).isEqualTo(2);
        });
    }

    static class Quotes {

        private final AtomicInteger calls = new AtomicInteger();

        int calls() {
            return calls.get();
        }

        @RateLimited(name = "plain", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "cached")
        public String plain(String symbol) {
            calls.incrementAndGet();
            return symbol + " 100";
        }

        public String cached(String symbol) {
            return symbol + " cached";
        }

        @RateLimited(name = "both", key = "#symbol", limit = 1, window = "1m", fallbackMethod = "busy")
        public String both(String symbol) {
            return symbol + " 100";
        }

        public String busy(String symbol) {
            return symbol + " busy";
        }

        public String busy(String symbol, RateLimitExceededException ex) {
            return symbol + " busy: " + ex.getLimiterName() + ", retry after " + ex.getDecision().retryAfter().toMillis() + " ms";
        }

        @RateLimited(name = "hidden", limit = 1, window = "1m", fallbackMethod = "secret")
        public String hidden(String symbol) {
            return symbol;
        }

        private String secret(String symbol, RateLimitExceededException ex) {
            return "hidden, proxy: " + AopUtils.isAopProxy(this);
        }

        @RateLimited(name = "broad", limit = 1, window = "1m", fallbackMethod = "negative")
        public int broad(int value) {
            return value;
        }

        Integer negative(int value, Throwable ex) {
            return -value;
        }

        @RateLimited(name = "failing", limit = 1, window = "1m", fallbackMethod = "noCache")
        public String failing(String symbol) throws IOException {
            return symbol;
        }

        String noCache(String symbol) throws IOException {
            throw new IOException("no cache for " + symbol);
        }

    }

}
