package dev.limiter.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.limiter.Outcome;
import dev.limiter.RateLimitExceededException;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/** Tests of {@code @RateLimited(fallbackMethod)}: resolved and checked at startup, called instead of failing, in a plain Spring application ({@link EnableRateLimiting}). */
class FallbackMethodTests {

    private final RateLimitingContextRunner contextRunner = new RateLimitingContextRunner()
        .withBean(VirtualClock.class, VirtualClock::new);

    @Test
    void fallbackWithTheSameParametersAnswersARejectedCall() {
        this.contextRunner.withBean(Quotes.class, Quotes::new).run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(quotes.plain("ACME")).isEqualTo("ACME 100");
            assertThat(quotes.plain("ACME")).isEqualTo("ACME cached");
            assertThat(quotes.calls()).isEqualTo(1);
        });
    }

    @Test
    void fallbackTakingTheExceptionIsPreferredAndGetsIt() {
        this.contextRunner.withBean(Quotes.class, Quotes::new).run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            quotes.both("ACME");
            assertThat(quotes.both("ACME")).isEqualTo("ACME busy: both, retry after 60000 ms");
        });
    }

    @Test
    void fallbackMayBePrivateAndRunsOnTheTargetNotTheProxy() {
        this.contextRunner.withBean(Quotes.class, Quotes::new).run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            assertThat(AopUtils.isAopProxy(quotes)).isTrue();
            quotes.hidden("ACME");
            assertThat(quotes.hidden("ACME")).isEqualTo("hidden, proxy: false");
        });
    }

    @Test
    void fallbackMayDeclareASupertypeOfTheException() {
        this.contextRunner.withBean(Quotes.class, Quotes::new).run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            quotes.broad(1);
            assertThat(quotes.broad(1)).isEqualTo(-1);
        });
    }

    @Test
    void exceptionsOfTheFallbackPropagateUnwrapped() {
        this.contextRunner.withBean(Quotes.class, Quotes::new).run((context) -> {
            Quotes quotes = context.getBean(Quotes.class);
            quotes.failing("ACME");
            assertThatExceptionOfType(IOException.class).isThrownBy(() -> quotes.failing("ACME")).withMessage("no cache for ACME");
        });
    }

    @Test
    void rejectedCallsOfAFallbackLimiterAreCountedAsFallbacks() {
        this.contextRunner.withBean(Quotes.class, Quotes::new)
            .withBean(ShadowModeTests.RecordedOutcomes.class, ShadowModeTests.RecordedOutcomes::new)
            .run((context) -> {
                Quotes quotes = context.getBean(Quotes.class);
                quotes.plain("ACME");
                quotes.plain("ACME");
                assertThat(context.getBean(ShadowModeTests.RecordedOutcomes.class).outcomes()).containsExactly(Outcome.ALLOWED,
                        Outcome.FALLBACK);
            });
    }

    @Test
    void fallbackOfAnInterfaceProxyIsFoundOnTheImplementation() {
        this.contextRunner.withUserConfiguration(GreeterConfiguration.class).run((context) -> {
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isJdkDynamicProxy(greeter)).isTrue();
            greeter.greet("alice");
            assertThat(greeter.greet("alice")).isEqualTo("Later, alice");
        });
    }

    @Test
    void missingFallbackFailsStartupListingTheSignaturesLookedFor() {
        this.contextRunner.withBean(Missing.class, Missing::new).run((context) -> {
            LimiterConfigurationException ex = failure(context.getStartupFailure());
            assertThat(ex.getWhere()).isEqualTo("@RateLimited(fallbackMethod) on Missing.quote(String, int)");
            assertThat(ex.getValue()).isEqualTo("\"nowhere\"");
            assertThat(ex.getProblem()).contains("no method named 'nowhere'");
            assertThat(ex.getAction()).contains("String nowhere(String, int, RateLimitExceededException)")
                .contains("String nowhere(String, int)");
        });
    }

    @Test
    void fallbackWithOtherParametersFailsStartupNamingWhatWasFound() {
        this.contextRunner.withBean(WrongParameters.class, WrongParameters::new).run((context) -> {
            LimiterConfigurationException ex = failure(context.getStartupFailure());
            assertThat(ex.getWhere()).isEqualTo("@RateLimited(fallbackMethod) on WrongParameters.quote(String)");
            assertThat(ex.getProblem()).contains("found WrongParameters.cached(int)");
            assertThat(ex.getAction()).contains("String cached(String, RateLimitExceededException) or String cached(String)");
        });
    }

    @Test
    void fallbackWithAnIncompatibleReturnTypeFailsStartup() {
        this.contextRunner.withBean(WrongReturnType.class, WrongReturnType::new).run((context) -> {
            LimiterConfigurationException ex = failure(context.getStartupFailure());
            assertThat(ex.getWhere()).isEqualTo("@RateLimited(fallbackMethod) on WrongReturnType.quotes(String)");
            assertThat(ex.getProblem()).contains("returns Integer").contains("returns List");
            assertThat(ex.getAction()).contains("Make cached return List");
        });
    }

    private static LimiterConfigurationException failure(Throwable startupFailure) {
        assertThat(startupFailure).isNotNull();
        Throwable cause = NestedExceptionUtils.getMostSpecificCause(startupFailure);
        assertThat(cause).isInstanceOf(LimiterConfigurationException.class);
        return (LimiterConfigurationException) cause;
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

    interface Greeter {

        String greet(String who);

    }

    static class PoliteGreeter implements Greeter {

        @Override
        @RateLimited(name = "greetings", key = "#name", limit = 1, window = "1m", fallbackMethod = "later")
        public String greet(String name) {
            return "Hello " + name;
        }

        String later(String name) {
            return "Later, " + name;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class GreeterConfiguration {

        @Bean
        Greeter greeter() {
            return new PoliteGreeter();
        }

    }

    static class Missing {

        @RateLimited(name = "missing", limit = 1, window = "1m", fallbackMethod = "nowhere")
        public String quote(String symbol, int size) {
            return symbol;
        }

    }

    static class WrongParameters {

        @RateLimited(name = "wrong-parameters", limit = 1, window = "1m", fallbackMethod = "cached")
        public String quote(String symbol) {
            return symbol;
        }

        String cached(int symbol) {
            return "cached";
        }

    }

    static class WrongReturnType {

        @RateLimited(name = "wrong-return", limit = 1, window = "1m", fallbackMethod = "cached")
        public List<String> quotes(String symbol) {
            return List.of(symbol);
        }

        Integer cached(String symbol) {
            return 0;
        }

    }

}
