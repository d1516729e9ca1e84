package dev.limiter.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

import dev.limiter.Algorithm;

/**
 * Builds Redis keys of the form {@code <prefix>:{<limiter name>:<user key>}:<algorithm>}, and
 * {@code <prefix>:{<limiter name>/<plan>:<user key>}:<algorithm>} for a plan of a limiter. The braces
 * make everything one decision touches share a hash tag (Redis Cluster); user keys are escaped so
 * that no text can close the tag early or collide with another key. Neither limiter nor plan names
 * hold '/' or ':', so a plan's keys never meet another plan's or those of a limiter without plans.
 */
final class RedisKeys {

    /** Limiter names: what a YAML map key and a Redis key both take without quoting. */

    /** Escaped user keys longer than this many UTF-8 bytes are replaced by a digest, so keys stay bounded. */
    static final int MAX_KEY_BYTES = 128;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private RedisKeys() {
    }

    static String checkPrefix(String prefix) {
        if (prefix == null || prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("Invalid key prefix '" + prefix + "': it must be non-empty and contain no '{' or '}'");
        }
        return prefix;
    }

    /** Start of every key of one limiter, up to where the user key goes. */
    static String head(String prefix, String name) {
        return prefix + ":{" + name + ":";
    }

    /** Start of every key of one plan of a limiter, up to where the user key goes. */
    static String head(String prefix, String name, String plan) {
        return prefix + ":{" + name + "/" + plan + ":";
    }

    /**
     * End of every key of one algorithm, after the user key: a short tag, so algorithms never read each
     * other's state. A tag changes with its state's layout, so that during a rolling deploy no script
     * reads a layout it does not know: fixed window's, gcra's and the buckets' end in 2 since their state
     * became one string of doubles (fw, gc, tb and lb: a hash), sliding log's since its entries hold
     * their time and a rejection hint, packed (sl: decimal '&lt;total&gt;:&lt;cost&gt;').
     */
    static String tail(Algorithm algorithm) {
        return "}:" + switch (algorithm) {
            case FIXED_WINDOW -> "fw2";
            case SLIDING_WINDOW -> "sw";
            case SLIDING_LOG -> "sl2";
            case TOKEN_BUCKET -> "tb2";
            case LEAKY_BUCKET -> "lb2";
            case GCRA -> "gc2";
        };
    }

    /** Where companion kinds go, after the user key: no feature's tag is this word (see {@link #companionTail}). */
    static final String COMPANION = "companion";

    /**
     * End of the key of state an integration keeps beside a limiter's key, after the user key:
     * {@code }:companion:<kind>}. Every feature's own keys end in {@code }:<tag>} or {@code }:<tag>:<fingerprint>}
     * with a tag of {@link #tail} or {@code cc}, {@code ccq} or {@code cct} (concurrency limits: slots,
     * waiters by arrival, waiters by lease), never {@code companion}: so no kind,
     * whatever its letters, names another feature's key of the same limiter and user key.
     *
     * @param kind lowercase letters, such as {@code hold}
     */
    static String companionTail(String kind) {
        if (kind == null || !kind.matches("[a-z]+")) {
            throw new IllegalArgumentException("kind must be lowercase letters but was '" + kind + "'");
        }
        return "}:" + COMPANION + ":" + kind;
    }

    /**
     * Escapes a user key injectively: '%', '{' and '}' become %25, %7B and %7D, and an unpaired
     * surrogate (which UTF-8 cannot carry) becomes %uXXXX. A longer result is replaced by
     * {@code %H} and a SHA-256 digest; '%' followed by 'H' never appears in an escaped key.
     */
    static String escape(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (key.length() <= MAX_KEY_BYTES && isPlain(key) && utf8Length(key) <= MAX_KEY_BYTES) {
            return key;
        }
        StringBuilder out = new StringBuilder(key.length() + 16);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '%') {
                out.append("%25");
            }
            else if (c == '{') {
                out.append("%7B");
            }
            else if (c == '}') {
                out.append("%7D");
            }
            else if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                out.append(c).append(key.charAt(++i));
            }
            else if (Character.isSurrogate(c)) {
                out.append("%u").append(HEX[(c >> 12) & 15]).append(HEX[(c >> 8) & 15]).append(HEX[(c >> 4) & 15]).append(HEX[c & 15]);
            }
            else {
                out.append(c);
            }
        }
        String escaped = out.toString();
        return (escaped.length() <= MAX_KEY_BYTES && utf8Length(escaped) <= MAX_KEY_BYTES) ? escaped : digest(escaped);
    }

    /** UTF-8 length of a string without unpaired surrogates. */
    private static int utf8Length(String text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            }
            else if (c < 0x800) {
                bytes += 2;
            }
            else if (Character.isHighSurrogate(c)) {
                bytes += 4;
                i++;
            }
            else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static boolean isPlain(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '%' || c == '{' || c == '}' || Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    private static String digest(String escaped) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(escaped.getBytes(StandardCharsets.UTF_8));
            return "%H" + Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }
}
