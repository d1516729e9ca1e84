package dev.limiter.spring.web;

import java.net.InetAddress;
import java.util.Arrays;

/** A block of IP addresses written as CIDR ({@code 10.0.0.0/8}, {@code 2001:db8::/32}) or one address. */
final class AddressRange {

    private final byte[] network;

    private final int prefixLength;

    private AddressRange(byte[] network, int prefixLength) {
        this.network = network;
        this.prefixLength = prefixLength;
    }

    /**
     * @throws IllegalArgumentException saying what is wrong when {@code text} is not an address or a CIDR block
     */
    static AddressRange parse(String text) {
        String trimmed = text.trim();
        int slash = trimmed.indexOf('/');
        String addressText = (slash >= 0) ? trimmed.substring(0, slash) : trimmed;
        InetAddress address = addressText.startsWith("[") ? null : IpAddresses.parse(addressText);
        if (address == null) {
            throw new IllegalArgumentException("'" + addressText + "' is not an IPv4 or IPv6 address");
        }
        byte[] bytes = address.getAddress();
        int bits = bytes.length * 8;
        int prefixLength = bits;
        if (slash >= 0) {
            String prefix = trimmed.substring(slash + 1);
            try {
                prefixLength = Integer.parseInt(prefix);
            }
            catch (NumberFormatException ex) {
                prefixLength = -1;
            }
            if (prefixLength < 0 || prefixLength > bits || !prefix.chars().allMatch(Character::isDigit)) {
                throw new IllegalArgumentException("'/" + prefix + "' is not a prefix length of an IPv" + (bits == 32 ? "4" : "6")
                        + " address (0 to " + bits + ")");
            }
        }
        return new AddressRange(IpAddresses.mask(bytes, prefixLength), prefixLength);
    }

    boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        return bytes.length == network.length && Arrays.equals(IpAddresses.mask(bytes, prefixLength), network);
    }
}
