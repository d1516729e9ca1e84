package dev.limiter.spring.web;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Finds the address of the client a request comes from, for {@code #clientIp} in key expressions,
 * without letting the client choose it. The socket's peer is the client unless it is a trusted
 * proxy; a forwarding header is read only then, from the right, skipping trusted proxies: the first
 * address that is not one is the client. Anything the chain cannot vouch for (a malformed, unknown
 * or obfuscated entry) ends the walk at the last trusted hop, so a broken header never breaks or
 * forges the key. IPv6 clients are grouped by their prefix ({@code /64} by default), since one host
 * holds a whole {@code /64} and could otherwise take a fresh limit per address.
 */
public final class ClientIpResolver {

    /** Which header the trusted proxies write the chain of client addresses to. */
    public enum ForwardedHeader {

        /** {@code X-Forwarded-For: client, proxy1, proxy2}. */
        X_FORWARDED_FOR("X-Forwarded-For"),

        /** RFC 7239 {@code Forwarded: for=client, for=proxy1}. */
        FORWARDED("Forwarded");

        private final String headerName;

        ForwardedHeader(String headerName) {
            this.headerName = headerName;
        }

        /** The header's name. */
        public String headerName() {
            return headerName;
        }
    }

    /** Trusts no proxy: the client is the socket's peer, grouped by its /64 for IPv6. */
    public static final ClientIpResolver DIRECT = new ClientIpResolver(List.of(), 64, ForwardedHeader.X_FORWARDED_FOR);

    private final List<AddressRange> trustedProxies;

    private final int ipv6PrefixLength;

    private final ForwardedHeader header;

    /**
     * @param trustedProxies addresses and CIDR blocks of the proxies whose forwarding headers are believed
     * @param ipv6PrefixLength leading bits of an IPv6 client address that identify the client, 1 to 128
     * @param header the header the trusted proxies append to
     * @throws IllegalArgumentException naming the entry that is not an address or CIDR block, or a bad prefix length
     */
    public ClientIpResolver(List<String> trustedProxies, int ipv6PrefixLength, ForwardedHeader header) {
        if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
            throw new IllegalArgumentException("An IPv6 prefix length is 1 to 128, not " + ipv6PrefixLength);
        }
        List<AddressRange> ranges = new ArrayList<>();
        for (String proxy : trustedProxies) {
            ranges.add(AddressRange.parse(proxy));
        }
        this.trustedProxies = List.copyOf(ranges);
        this.ipv6PrefixLength = ipv6PrefixLength;
        this.header = header;
    }

    /** Checks one trusted-proxy entry. @throws IllegalArgumentException saying what is wrong with it */
    public static void checkTrustedProxy(String proxy) {
        AddressRange.parse(proxy);
    }

    /** The name of the header read from trusted proxies. */
    public String headerName() {
        return header.headerName();
    }

    /**
     * The client's address, normalized: IPv4 as a dotted quad, IPv6 compressed and, with a prefix
     * under 128, as its network such as {@code 2001:db8:1:2::/64}.
     *
     * @param remoteAddress the socket's peer
     * @param headerValues every value of {@link #headerName()} in the request, in order (read only
     *     when the peer is a trusted proxy)
     * @return null when the peer itself is not an IP address
     */
    public @Nullable String resolve(@Nullable String remoteAddress, List<String> headerValues) {
        InetAddress peer = IpAddresses.parse(remoteAddress);
        if (peer == null) {
            return null;
        }
        InetAddress client = peer;
        if (isTrusted(peer) && !headerValues.isEmpty()) {
            List<String> chain = entries(headerValues);
            for (int i = chain.size() - 1; i >= 0; i--) {
                InetAddress hop = IpAddresses.parse(chain.get(i));
                if (hop == null) {
                    // The trusted hop that wrote this entry is as far as the chain can be believed.
                    break;
                }
                client = hop;
                if (!isTrusted(hop)) {
                    break;
                }
            }
        }
        return normalize(client);
    }

    private boolean isTrusted(InetAddress address) {
        for (AddressRange range : trustedProxies) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** The addresses of the chain, left to right; an entry that names none is kept as written, to stop the walk. */
    private List<String> entries(List<String> headerValues) {
        List<String> entries = new ArrayList<>();
        for (String value : headerValues) {
            if (value == null) {
                continue;
            }
            for (String element : value.split(",", -1)) {
                entries.add((header == ForwardedHeader.FORWARDED) ? forNode(element) : element.trim());
            }
        }
        return entries;
    }

    /** The {@code for=} node of one RFC 7239 element, unquoted; "" when it has none. */
    private static String forNode(String element) {
        for (String pair : element.split(";", -1)) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).trim().toLowerCase(Locale.ROOT).equals("for")) {
                String value = pair.substring(equals + 1).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                return value;
            }
        }
        return "";
    }

    private String normalize(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 4 || ipv6PrefixLength == 128) {
            return IpAddresses.format(bytes);
        }
        return IpAddresses.format(IpAddresses.mask(bytes, ipv6PrefixLength)) + "/" + ipv6PrefixLength;
    }
}
