package dev.limiter.internal.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;

import org.junit.jupiter.api.Test;

/** The rounding every model relies on: floor and ceil towards the right infinity, also below zero. */
class RationalTests {

    @Test
    void floorAndCeilRoundTowardsTheirInfinity() {
        assertThat(Rational.of(7, 2).floor()).isEqualTo(3);
        assertThat(Rational.of(7, 2).ceil()).isEqualTo(4);
        assertThat(Rational.of(-7, 2).floor()).isEqualTo(-4);
        assertThat(Rational.of(-7, 2).ceil()).isEqualTo(-3);
        assertThat(Rational.of(6, 3).floor()).isEqualTo(2);
        assertThat(Rational.of(6, -3).ceil()).isEqualTo(-2);
    }

    @Test
    void arithmeticIsExactBeyondLongs() {
        Rational third = Rational.of(1, 3);
        Rational big = Rational.of(Long.MAX_VALUE).times(Long.MAX_VALUE).plus(third);
        assertThat(big.minus(third).dividedBy(Rational.of(Long.MAX_VALUE)).floor()).isEqualTo(BigInteger.valueOf(Long.MAX_VALUE));
        assertThat(third.plus(third).plus(third)).isEqualTo(Rational.of(1));
        assertThat(Rational.of(2, 4)).isEqualTo(Rational.of(-1, -2)).hasSameHashCodeAs(Rational.of(1, 2));
        assertThat(Rational.min(Rational.of(1, 3), Rational.of(1, 4))).isEqualTo(Rational.of(1, 4));
    }
}
