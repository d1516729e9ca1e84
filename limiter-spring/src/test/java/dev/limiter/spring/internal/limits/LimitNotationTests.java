package dev.limiter.spring.internal.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limiter.spring.internal.limits.LimitNotation.Written;

import org.junit.jupiter.api.Test;

/** Tests the limit notation: one limit or a list, parts trimmed, a burst only where allowed. */
class LimitNotationTests {

    @Test
    void aLimitIsALimitAndAWindow() {
        assertThat(LimitNotation.limit(" 10 / 1s ", false)).isEqualTo(new Written("10", "1s", null));
        assertThat(LimitNotation.limit("10/1s/20", true)).isEqualTo(new Written("10", "1s", "20"));
    }

    @Test
    void aBurstOnlyWhereAllowed() {
        assertThat(LimitNotation.limit("10/1s/20", false)).isNull();
    }

    @Test
    void missingOrBlankPartsAreNoLimit() {
        assertThat(LimitNotation.limit("10", true)).isNull();
        assertThat(LimitNotation.limit("10/", true)).isNull();
        assertThat(LimitNotation.limit("/1s", true)).isNull();
        assertThat(LimitNotation.limit("10/ /5", true)).isNull();
        assertThat(LimitNotation.limit("10/1s/5/5", true)).isNull();
    }

    @Test
    void aListIsSeparatedByCommas() {
        assertThat(LimitNotation.limits("10/1s, 1000/1h/1200", true)).containsExactly(new Written("10", "1s", null),
                new Written("1000", "1h", "1200"));
        assertThat(LimitNotation.limits("10/1s,", true)).isNull();
        assertThat(LimitNotation.limits("10/1s, 1000/1h/1200", false)).isNull();
    }
}
