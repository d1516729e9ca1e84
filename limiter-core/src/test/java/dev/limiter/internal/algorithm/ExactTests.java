package dev.limiter.internal.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** The exact arithmetic the twins share with the scripts: both ways of multiplying and dividing give the exact answer. */
class ExactTests {

    @Test
    void mulDivModIsExactWithOneDivisionAndByDigits() {
        SplittableRandom random = new SplittableRandom(20261125);
        for (int i = 0; i < 200_000; i++) {
            // Operands across the whole range the scripts allow, small ones often: the usual case.
            long a = random.nextLong(1L << random.nextInt(1, 36));
            long b = random.nextLong(1L << random.nextInt(1, 47));
            long m = 1 + random.nextLong((1L << random.nextInt(1, 47)) - 1);
            BigInteger[] exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divideAndRemainder(BigInteger.valueOf(m));
            if (exact[0].bitLength() > 53) {
                continue;
            }
            Exact.QR expected = new Exact.QR(exact[0].longValueExact(), exact[1].longValueExact());
            assertThat(Exact.mulDivMod(a, b, m)).as("%d * %d / %d", a, b, m).isEqualTo(expected);
            assertThat(Exact.mulDivModByDigits(a, b, m)).as("by digits: %d * %d / %d", a, b, m).isEqualTo(expected);
        }
    }

    @Test
    void aProductBeyondALongIsComputedByDigits() {
        long a = (1L << 35) - 1;
        long b = (1L << 46) - 1;
        long m = (1L << 30) + 7;
        BigInteger[] exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divideAndRemainder(BigInteger.valueOf(m));
        assertThat(Math.multiplyHigh(a, b)).isNotZero();
        assertThat(Exact.mulDivMod(a, b, m)).isEqualTo(new Exact.QR(exact[0].longValueExact(), exact[1].longValueExact()));
    }

    @Test
    void productsAtTheEdgeOfALongTakeTheRightPath() {
        // a * b just below 2^63 fits (one division); from 2^63 on it does not, although the high half of the
        // 128-bit product is still 0: the sign of the low half tells.
        long m = (1L << 30) + 7;
        long[][] operands = {
            { (1L << 35) - 1, (1L << 28) + 1 }, // 2^63 + 2^35 - 2^28 - 1
            { 1L << 34, 1L << 29 }, // 2^63 exactly
            { (1L << 34) - 1, 1L << 29 }, // 2^63 - 2^29
            { (1L << 35) - 1, (1L << 28) - 1 }, // below 2^63
            { 3, 3_074_457_345_618_258_602L >> 18 }, // a small factor times a large one
        };
        for (long[] ab : operands) {
            BigInteger[] exact = BigInteger.valueOf(ab[0]).multiply(BigInteger.valueOf(ab[1])).divideAndRemainder(BigInteger.valueOf(m));
            Exact.QR expected = new Exact.QR(exact[0].longValueExact(), exact[1].longValueExact());
            assertThat(Exact.mulDivMod(ab[0], ab[1], m)).as("%d * %d / %d", ab[0], ab[1], m).isEqualTo(expected);
        }
    }
}
