package dev.limiter.internal.algorithm;

/**
 * The whole-number arithmetic of {@code decision-prelude.lua}, step for step, so that the in-memory twins
 * compute exactly what the scripts compute (Lua numbers are doubles, exact below 2^53; every
 * intermediate value here stays below that too).
 */
final class Exact {

    private Exact() {
    }

    /** Quotient and remainder of a division. */
    record QR(long q, long r) {
    }

    /** floor(x / m) and x - m * floor(x / m), for 0 < m. */
    static QR divmod(long x, long m) {
        long q = Math.floorDiv(x, m);
        return new QR(q, x - q * m);
    }

    /** floor(x / m). */
    static long floorDiv(long x, long m) {
        return Math.floorDiv(x, m);
    }

    /** ceil(x / m) for 0 < m. */
    static long ceilDiv(long x, long m) {
        return -Math.floorDiv(-x, m);
    }

    /**
     * floor(a * b / m) and (a * b) mod m for 0 <= a < 2^35, 0 <= b < 2^46, 0 < m < 2^46, with the
     * quotient below 2^53; a * b itself may exceed a long. Both answers are exact, so they are the
     * script's bit for bit: like the script, one division when the product is small enough (here:
     * when it fits in a long, the usual case), else the script's long multiplication.
     */
    static QR mulDivMod(long a, long b, long m) {
        if (Math.multiplyHigh(a, b) == 0) {
            long product = a * b;
            if (product >= 0) {
                return new QR(product / m, product % m);
            }
        }
        return mulDivModByDigits(a, b, m);
    }

    /** {@link #mulDivMod} by 7-bit digits of {@code a}, as the script does when a * b reaches 2^52. */
    static QR mulDivModByDigits(long a, long b, long m) {
        long bq = b / m;
        long br = b % m;
        long q = 0;
        long r = 0;
        for (int shift = 28; shift >= 0; shift -= 7) {
            long digit = (a >>> shift) & 127;
            long r128 = r * 128;
            long digitProduct = digit * br;
            q = q * 128 + r128 / m + digitProduct / m;
            r = r128 % m + digitProduct % m;
            if (r >= m) {
                q++;
                r -= m;
            }
        }
        return new QR(a * bq + q, r);
    }
}
