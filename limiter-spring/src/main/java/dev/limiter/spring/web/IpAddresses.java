package dev.limiter.spring.web;

import java.net.InetAddress;
import java.net.UnknownHostException;

import org.jspecify.annotations.Nullable;

/**
 * Parses and writes IP address literals strictly, without ever asking DNS: text from a header is
 * either an IPv4 dotted quad or an IPv6 literal, else it is not an address.
 */
final class IpAddresses {

    private IpAddresses() {
    }

    /**
     * The address {@code text} is written as, an IPv4-mapped IPv6 address as IPv4; null when it is
     * not a literal address. Accepts {@code [v6]}, {@code [v6]:port}, {@code v4:port} and a zone
     * ({@code fe80::1%eth0}), which is dropped.
     */
    static @Nullable InetAddress parse(@Nullable String text) {
        if (text == null) {
            return null;
        }
        String literal = text.trim();
        if (literal.startsWith("[")) {
            int end = literal.indexOf(']');
            if (end < 0 || !(end == literal.length() - 1 || isPort(literal, end + 1))) {
                return null;
            }
            literal = literal.substring(1, end);
        }
        else if (literal.indexOf(':') >= 0 && literal.indexOf(':') == literal.lastIndexOf(':') && literal.indexOf('.') >= 0) {
            // One colon and dots: an IPv4 address with a port.
            int colon = literal.indexOf(':');
            if (!isPort(literal, colon)) {
                return null;
            }
            literal = literal.substring(0, colon);
        }
        int zone = literal.indexOf('%');
        if (zone >= 0) {
            literal = literal.substring(0, zone);
        }
        byte[] bytes = (literal.indexOf(':') >= 0) ? ipv6(literal) : ipv4(literal);
        if (bytes == null) {
            return null;
        }
        try {
            // From bytes, never a lookup; an IPv4-mapped address comes back as an Inet4Address.
            return InetAddress.getByAddress(bytes);
        }
        catch (UnknownHostException ex) {
            return null;
        }
    }

    /** Whether {@code text} from {@code colon} (a ':') on is a port: 1 to 5 digits. */
    private static boolean isPort(String text, int colon) {
        int digits = text.length() - colon - 1;
        if (text.charAt(colon) != ':' || digits < 1 || digits > 5) {
            return false;
        }
        for (int i = colon + 1; i < text.length(); i++) {
            if (!isDigit(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static byte @Nullable [] ipv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            String part = parts[i];
            if (part.isEmpty() || part.length() > 3 || (part.length() > 1 && part.charAt(0) == '0')) {
                return null;
            }
            int value = 0;
            for (int j = 0; j < part.length(); j++) {
                if (!isDigit(part.charAt(j))) {
                    return null;
                }
                value = value * 10 + (part.charAt(j) - '0');
            }
            if (value > 255) {
                return null;
            }
            bytes[i] = (byte) value;
        }
        return bytes;
    }

    private static byte @Nullable [] ipv6(String text) {
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        String head = (gap >= 0) ? text.substring(0, gap) : text;
        String tail = (gap >= 0) ? text.substring(gap + 2) : "";
        byte[] bytes = new byte[16];
        byte[] headBytes = groups(head, gap < 0);
        byte[] tailBytes = groups(tail, true);
        if (headBytes == null || tailBytes == null) {
            return null;
        }
        if (gap < 0 ? headBytes.length != 16 : headBytes.length + tailBytes.length > 14) {
            return null;
        }
        System.arraycopy(headBytes, 0, bytes, 0, headBytes.length);
        System.arraycopy(tailBytes, 0, bytes, 16 - tailBytes.length, tailBytes.length);
        return bytes;
    }

    /** The bytes of colon-separated hex groups, the last of which may be an IPv4 address when {@code last}. */
    private static byte @Nullable [] groups(String text, boolean last) {
        if (text.isEmpty()) {
            return new byte[0];
        }
        String[] groups = text.split(":", -1);
        byte[] bytes = new byte[groups.length * 2 + 2];
        int length = 0;
        for (int i = 0; i < groups.length; i++) {
            String group = groups[i];
            if (last && i == groups.length - 1 && group.indexOf('.') >= 0) {
                byte[] v4 = ipv4(group);
                if (v4 == null) {
                    return null;
                }
                System.arraycopy(v4, 0, bytes, length, 4);
                length += 4;
                continue;
            }
            if (group.isEmpty() || group.length() > 4) {
                return null;
            }
            int value = 0;
            for (int j = 0; j < group.length(); j++) {
                int digit = Character.digit(group.charAt(j), 16);
                if (digit < 0) {
                    return null;
                }
                value = (value << 4) | digit;
            }
            bytes[length++] = (byte) (value >> 8);
            bytes[length++] = (byte) value;
        }
        byte[] result = new byte[length];
        System.arraycopy(bytes, 0, result, 0, length);
        return result;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The first {@code prefixLength} bits of {@code bytes}, the rest zero. */
    static byte[] mask(byte[] bytes, int prefixLength) {
        byte[] masked = bytes.clone();
        for (int i = 0; i < masked.length; i++) {
            int keep = Math.max(0, Math.min(8, prefixLength - i * 8));
            masked[i] = (byte) (masked[i] & (0xff00 >> keep));
        }
        return masked;
    }

    /** The canonical text of an address (RFC 5952 for IPv6: lower case, the longest run of zero groups as "::"). */
    static String format(byte[] bytes) {
        if (bytes.length == 4) {
            return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; i++) {
            int run = 0;
            while (i + run < 8 && groups[i + run] == 0) {
                run++;
            }
            if (run > bestLength) {
                bestStart = i;
                bestLength = run;
            }
            i += run;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}
