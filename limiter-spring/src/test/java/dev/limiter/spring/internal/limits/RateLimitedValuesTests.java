package dev.limiter.spring.internal.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;

import org.junit.jupiter.api.Test;
import org.springframework.util.ReflectionUtils;

/**
 * Tests what an annotation says on its own, read and checked by {@link RateLimitedValues}: the values,
 * the limit notation without a burst, the durations Spring Boot's properties take (under Spring Boot no
 * others; without it, read by Spring Framework's parser, the same inputs with the same results), and
 * messages naming the attribute at its site.
 */
class RateLimitedValuesTests {

    @Test
    void readsDurationsAsSpringBootDoes() {
        assertThat(parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(parse("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(parse("250us")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(parse("100ns")).isEqualTo(Duration.ofNanos(100));
        assertThat(parse("10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(parse("pt0.5s")).isEqualTo(Duration.ofMillis(500));
        // A bare number is milliseconds, as in Spring Boot.
        assertThat(parse("10")).isEqualTo(Duration.ofMillis(10));
        assertThat(parse(" 10s ")).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void refusesWhatSpringBootRefusesNamingWhereItIsWritten() {
        for (String text : new String[] { "1.5s", "10 s", "s", "", "1w", "10sec", "1h30m" }) {
            assertThatExceptionOfType(LimiterConfigurationException.class)
                .isThrownBy(() -> RateLimitedValues.duration(text, "@RateLimited(window) on A.m()"))
                .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("@RateLimited(window) on A.m()"))
                .withMessageStartingWith("Not a duration");
        }
    }

    @Test
    void namesTheAttributeOfASite() {
        assertThat(RateLimitedValues.attribute("burst", "@RateLimited on Orders.list(User)")).isEqualTo("@RateLimited(burst) on Orders.list(User)");
        assertThat(attributes("unset").where("burst")).isEqualTo("@RateLimited(burst) on Fixtures.unset()");
    }

    @Test
    void attributesLeftAtTheirDefaultsAreNotSet() {
        RateLimitedValues attributes = attributes("unset");
        attributes.check();
        assertThat(attributes.limit()).isNull();
        assertThat(attributes.window()).isNull();
        assertThat(attributes.burst()).isNull();
        assertThat(attributes.subWindows()).isNull();
        assertThat(attributes.maxWait()).isNull();
        assertThat(attributes.setsLimit()).isFalse();
        assertThat(attributes.setsLimits()).isFalse();
        assertThat(attributes.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
    }

    @Test
    void valuesAreReadAsPropertiesWouldBind() {
        RateLimitedValues attributes = attributes("single");
        attributes.check();
        assertThat(attributes.limit()).isEqualTo(10);
        assertThat(attributes.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(attributes.burst()).isEqualTo(20);
        assertThat(attributes.maxWait()).isEqualTo(Duration.ofMillis(250));
        assertThat(attributes.site()).isEqualTo("@RateLimited on Fixtures.single()");
    }

    @Test
    void severalLimitsAreWrittenInTheLimitNotation() {
        assertThat(attributes("several").limits()).containsExactly(LimitSpec.of(10, Duration.ofSeconds(1)),
                LimitSpec.of(1000, Duration.ofHours(1)), LimitSpec.of(5, Duration.ofMillis(500)));
    }

    @Test
    void aBurstCannotBeWrittenInTheAnnotationsLimits() {
        assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(() -> attributes("withBurst").check())
            .satisfies((ex) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(limits) on Fixtures.withBurst()");
                assertThat(ex.getValue()).isEqualTo("\"10/1s/20\"");
                assertThat(ex.getProblem()).isEqualTo("Not a limit");
                assertThat(ex.getAction()).contains("\"<limit>/<window>\"");
            });
    }

    @Test
    void aLimitThatIsNoNumberIsNotALimit() {
        assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(() -> attributes("notANumber").check())
            .satisfies((ex) -> assertThat(ex.getProblem()).isEqualTo("Not a limit"));
    }

    @Test
    void compositeDurationsAreRefusedAsPropertiesRefuseThem() {
        assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(() -> attributes("composite").check())
            .satisfies((ex) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(window) on Fixtures.composite()");
                assertThat(ex.getValue()).isEqualTo("\"1h30m\"");
                assertThat(ex.getProblem()).isEqualTo("Not a duration");
            });
        assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(() -> attributes("compositeInLimits").check())
            .satisfies((ex) -> assertThat(ex.getProblem()).isEqualTo("Not a limit"));
    }

    @Test
    void withoutSpringBootCompositeDurationsAreRefusedToo() {
        assertThatExceptionOfType(LimiterConfigurationException.class)
            .isThrownBy(() -> RateLimitedValues.config(annotation("composite"), "@RateLimited on Fixtures.composite()"))
            .satisfies((ex) -> assertThat(ex.getProblem()).isEqualTo("Not a duration"));
        assertThatExceptionOfType(LimiterConfigurationException.class)
            .isThrownBy(() -> RateLimitedValues.config(annotation("compositeInLimits"), "@RateLimited on Fixtures.compositeInLimits()"))
            .satisfies((ex) -> assertThat(ex.getProblem()).isEqualTo("Not a limit"));
    }

    @Test
    void aBareNumberIsMillisecondsAndIsoDurationsAreTaken() {
        assertThat(attributes("bareAndIso").window()).isEqualTo(Duration.ofMillis(1500));
        assertThat(attributes("bareAndIso").maxWait()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void limitsBesideALimitAreRefused() {
        assertThatExceptionOfType(LimiterConfigurationException.class).isThrownBy(() -> attributes("both").check())
            .satisfies((ex) -> {
                assertThat(ex.getWhere()).isEqualTo("@RateLimited(limits) on Fixtures.both()");
                assertThat(ex.getProblem()).isEqualTo("The annotation sets both limits and limit/window");
            });
    }

    private static Duration parse(String text) {
        return RateLimitedValues.duration(text, "w");
    }

    private static RateLimitedValues attributes(String method) {
        return RateLimitedValues.asPropertiesBind(annotation(method), "@RateLimited on Fixtures." + method + "()");
    }

    private static RateLimited annotation(String method) {
        return ReflectionUtils.findMethod(Fixtures.class, method).getAnnotation(RateLimited.class);
    }

    static class Fixtures {

        @RateLimited(name = "a")
        void unset() {
        }

        @RateLimited(name = "a", limit = 10, window = "1s", burst = 20, maxWait = "250ms")
        void single() {
        }

        @RateLimited(name = "a", limits = { "10/1s", " 1000 / 1h ", "5/PT0.5S" })
        void several() {
        }

        @RateLimited(name = "a", limits = "10/1s/20")
        void withBurst() {
        }

        @RateLimited(name = "a", limits = "ten/1s")
        void notANumber() {
        }

        @RateLimited(name = "a", limit = 10, window = "1h30m")
        void composite() {
        }

        @RateLimited(name = "a", limits = "10/1h30m")
        void compositeInLimits() {
        }

        @RateLimited(name = "a", limit = 10, window = "1500", maxWait = "PT2S")
        void bareAndIso() {
        }

        @RateLimited(name = "a", limit = 10, limits = "10/1s")
        void both() {
        }

    }
}
