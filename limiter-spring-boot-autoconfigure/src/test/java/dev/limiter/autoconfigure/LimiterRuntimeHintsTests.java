package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.spring.RateLimited;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;

/** A native image finds the Lua scripts and can call limited methods and their fallbacks. */
class LimiterRuntimeHintsTests {

    @Test
    void everyScriptIsARegisteredResource() {
        RuntimeHints hints = new RuntimeHints();
        new LimiterRuntimeHints().registerHints(hints, getClass().getClassLoader());
        for (String script : new String[] { "dev/limiter/internal/algorithm/token-bucket.lua", "dev/limiter/internal/algorithm/token-bucket-refund.lua",
                "dev/limiter/internal/algorithm/decision-prelude.lua", "dev/limiter/internal/algorithm/verdict.lua", "dev/limiter/redis/batch.lua",
                "dev/limiter/redis/probe.lua", "dev/limiter/redis/instances.lua" }) {
            assertThat(RuntimeHintsPredicates.resource().forResource(script)).as(script).accepts(hints);
        }
    }

    @Test
    void registeredThroughAotFactories() {
        assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(LimiterRuntimeHints.class);
        assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class)).hasAtLeastOneElementOfType(LimiterRuntimeHints.class);
    }

    @Test
    void limitedMethodsAndTheirFallbacksMayBeInvoked() throws NoSuchMethodException {
        RuntimeHints hints = new RuntimeHints();
        LimiterRuntimeHints.registerMethods(Quotes.class, hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Quotes.class.getDeclaredMethod("quote", String.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Quotes.class.getDeclaredMethod("lastQuote", String.class)))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Quotes.class.getDeclaredMethod("unrelated"))).rejects(hints);
    }

    @Test
    void onlyBeansWithLimitedMethodsContribute() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition("quotes", new RootBeanDefinition(Quotes.class));
        beans.registerBeanDefinition("plain", new RootBeanDefinition(Plain.class));
        LimiterRuntimeHints processor = new LimiterRuntimeHints();
        assertThat(processor.processAheadOfTime(RegisteredBean.of(beans, "quotes"))).isNotNull();
        assertThat(processor.processAheadOfTime(RegisteredBean.of(beans, "plain"))).isNull();
    }

    static class Quotes {

        @RateLimited(name = "quotes", key = "#symbol", limit = 2, window = "10s", fallbackMethod = "lastQuote")
        public String quote(String symbol) {
            return symbol;
        }

        String lastQuote(String symbol) {
            return symbol;
        }

        void unrelated() {
        }

    }

    static class Plain {

        public String call() {
            return "";
        }

    }
}
