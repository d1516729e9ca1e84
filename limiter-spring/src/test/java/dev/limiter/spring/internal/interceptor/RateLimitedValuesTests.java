package dev.limiter.spring.internal.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;

import dev.limiter.spring.LimiterConfigurationException;

import org.junit.jupiter.api.Test;

/**
 * The durations of annotations, read by Spring Framework's parser without Spring Boot: the inputs Spring
 * Boot's {@code DurationStyle} takes (checked against it once, side by side), with the same results.
 */
class RateLimitedValuesTests {

    @Test
    void readsDurationsAsSpringBootDoes() {
        assertThat(RateLimitedValues.parse("10s", "w")).isEqualTo(Duration.ofSeconds(10));
        assertThat(RateLimitedValues.parse("500ms", "w")).isEqualTo(Duration.ofMillis(500));
        assertThat(RateLimitedValues.parse("1h", "w")).isEqualTo(Duration.ofHours(1));
        assertThat(RateLimitedValues.parse("1d", "w")).isEqualTo(Duration.ofDays(1));
        assertThat(RateLimitedValues.parse("1m", "w")).isEqualTo(Duration.ofMinutes(1));
        assertThat(RateLimitedValues.parse("250us", "w")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(RateLimitedValues.parse("100ns", "w")).isEqualTo(Duration.ofNanos(100));
        assertThat(RateLimitedValues.parse("10S", "w")).isEqualTo(Duration.ofSeconds(10));
        assertThat(RateLimitedValues.parse("PT10S", "w")).isEqualTo(Duration.ofSeconds(10));
        assertThat(RateLimitedValues.parse("pt0.5s", "w")).isEqualTo(Duration.ofMillis(500));
        // A bare number is milliseconds, as in Spring Boot.
        assertThat(RateLimitedValues.parse("10", "w")).isEqualTo(Duration.ofMillis(10));
        assertThat(RateLimitedValues.parse(" 10s ", "w")).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void refusesWhatSpringBootRefusesNamingWhereItIsWritten() {
        for (String text : new String[] { "1.5s", "10 s", "s", "", "1w", "10sec" }) {
            assertThatExceptionOfType(LimiterConfigurationException.class)
                .isThrownBy(() -> RateLimitedValues.parse(text, "@RateLimited(window) on A.m()"))
                .satisfies((ex) -> assertThat(ex.getWhere()).isEqualTo("@RateLimited(window) on A.m()"))
                .withMessageStartingWith("Not a duration");
        }
    }

    @Test
    void namesTheAttributeOfASite() {
        assertThat(RateLimitedValues.attribute("burst", "@RateLimited on Orders.list(User)")).isEqualTo("@RateLimited(burst) on Orders.list(User)");
    }
}
