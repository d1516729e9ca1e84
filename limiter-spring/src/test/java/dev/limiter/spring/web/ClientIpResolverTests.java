package dev.limiter.spring.web;

import java.util.List;

import dev.limiter.spring.web.ClientIpResolver.ForwardedHeader;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The client address behind proxies: only trusted hops are believed, walked from the right; spoofed,
 * malformed and obfuscated entries never forge or break the result; IPv6 clients are grouped.
 */
class ClientIpResolverTests {

    private final ClientIpResolver behindProxies = new ClientIpResolver(List.of("10.0.0.0/8", "2001:db8:ffff::/48", "192.0.2.7"), 64,
            ForwardedHeader.X_FORWARDED_FOR);

    private final ClientIpResolver forwarded = new ClientIpResolver(List.of("10.0.0.0/8", "2001:db8:ffff::/48"), 64,
            ForwardedHeader.FORWARDED);

    @Test
    void withoutTrustedProxiesTheSocketPeerIsTheClientWhateverTheHeaderSays() {
        assertThat(ClientIpResolver.DIRECT.resolve("203.0.113.9", List.of("198.51.100.1"))).isEqualTo("203.0.113.9");
        assertThat(ClientIpResolver.DIRECT.resolve("203.0.113.9", List.of())).isEqualTo("203.0.113.9");
    }

    @Test
    void headerFromAnUntrustedPeerIsIgnored() {
        assertThat(behindProxies.resolve("203.0.113.9", List.of("198.51.100.1, 10.0.0.1"))).isEqualTo("203.0.113.9");
    }

    @Test
    void firstUntrustedAddressFromTheRightIsTheClient() {
        // The client put 1.1.1.1 in front itself: the trusted proxies' own entries end at 198.51.100.1.
        assertThat(behindProxies.resolve("10.0.0.2", List.of("1.1.1.1, 198.51.100.1, 10.0.0.1"))).isEqualTo("198.51.100.1");
        assertThat(behindProxies.resolve("192.0.2.7", List.of("1.1.1.1", "198.51.100.1, 10.1.2.3"))).isEqualTo("198.51.100.1");
    }

    @Test
    void chainOfOnlyTrustedProxiesEndsAtItsFirstEntry() {
        assertThat(behindProxies.resolve("10.0.0.2", List.of("10.0.0.9, 10.0.0.1"))).isEqualTo("10.0.0.9");
    }

    @Test
    void trustedPeerWithoutHeaderIsItselfTheClient() {
        assertThat(behindProxies.resolve("10.0.0.2", List.of())).isEqualTo("10.0.0.2");
    }

    @Test
    void malformedEntryEndsTheWalkAtTheLastTrustedHop() {
        assertThat(behindProxies.resolve("10.0.0.2", List.of("198.51.100.1, evil.example, 10.0.0.1"))).isEqualTo("10.0.0.1");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("198.51.100.1, unknown"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of(""))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of(",,"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("1.2.3"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("01.2.3.4"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("256.1.1.1"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("1:2:3:4:5:6:7:8:9"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("1::2::3"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("1.2.3.4::"))).isEqualTo("10.0.0.2");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("[2001:db8::1"))).isEqualTo("10.0.0.2");
    }

    @Test
    void portsAndBracketsAreAccepted() {
        assertThat(behindProxies.resolve("10.0.0.2", List.of("198.51.100.1:4711"))).isEqualTo("198.51.100.1");
        assertThat(behindProxies.resolve("10.0.0.2", List.of("[2001:db8:1:2::7]:443"))).isEqualTo("2001:db8:1:2::/64");
    }

    @Test
    void ipv6ClientsAreGroupedByTheirPrefix() {
        assertThat(ClientIpResolver.DIRECT.resolve("2001:db8:1:2:aaaa:bbbb:cccc:dddd", List.of())).isEqualTo("2001:db8:1:2::/64");
        assertThat(ClientIpResolver.DIRECT.resolve("2001:0DB8:0001:0002:0:0:0:1", List.of())).isEqualTo("2001:db8:1:2::/64");
        assertThat(ClientIpResolver.DIRECT.resolve("2001:db8:1:3::1", List.of())).isEqualTo("2001:db8:1:3::/64");
        ClientIpResolver exact = new ClientIpResolver(List.of(), 128, ForwardedHeader.X_FORWARDED_FOR);
        assertThat(exact.resolve("2001:0db8:0:0:1:0:0:1", List.of())).isEqualTo("2001:db8::1:0:0:1");
        assertThat(exact.resolve("fe80::1%eth0", List.of())).isEqualTo("fe80::1");
        ClientIpResolver wide = new ClientIpResolver(List.of(), 48, ForwardedHeader.X_FORWARDED_FOR);
        assertThat(wide.resolve("2001:db8:1:2::1", List.of())).isEqualTo("2001:db8:1::/48");
    }

    @Test
    void ipv4MappedIpv6IsIpv4() {
        assertThat(ClientIpResolver.DIRECT.resolve("::ffff:203.0.113.9", List.of())).isEqualTo("203.0.113.9");
        assertThat(behindProxies.resolve("::ffff:10.0.0.2", List.of("198.51.100.1"))).isEqualTo("198.51.100.1");
    }

    @Test
    void ipv6TrustedProxiesAndClients() {
        assertThat(behindProxies.resolve("2001:db8:ffff::1", List.of("2001:db8:5::9, 2001:db8:ffff::2"))).isEqualTo("2001:db8:5::/64");
        assertThat(behindProxies.resolve("2001:db8:fffe::1", List.of("2001:db8:5::9"))).isEqualTo("2001:db8:fffe::/64");
        assertThat(behindProxies.resolve("::1", List.of("198.51.100.1"))).isEqualTo("::/64");
    }

    @Test
    void forwardedHeaderReadsTheForNodes() {
        assertThat(forwarded.resolve("10.0.0.2", List.of("for=1.1.1.1, for=198.51.100.1;proto=https;by=10.0.0.2"))).isEqualTo("198.51.100.1");
        assertThat(forwarded.resolve("10.0.0.2", List.of("For=\"[2001:db8:1:2::7]:4711\""))).isEqualTo("2001:db8:1:2::/64");
        assertThat(forwarded.resolve("10.0.0.2", List.of("for=198.51.100.1", "for=10.0.0.1"))).isEqualTo("198.51.100.1");
        // Obfuscated, unknown or missing nodes cannot be vouched for.
        assertThat(forwarded.resolve("10.0.0.2", List.of("for=198.51.100.1, for=_hidden"))).isEqualTo("10.0.0.2");
        assertThat(forwarded.resolve("10.0.0.2", List.of("for=198.51.100.1, for=unknown"))).isEqualTo("10.0.0.2");
        assertThat(forwarded.resolve("10.0.0.2", List.of("proto=https"))).isEqualTo("10.0.0.2");
        assertThat(forwarded.resolve("203.0.113.9", List.of("for=198.51.100.1"))).isEqualTo("203.0.113.9");
        assertThat(forwarded.headerName()).isEqualTo("Forwarded");
    }

    @Test
    void peerThatIsNotAnAddressGivesNoClient() {
        assertThat(ClientIpResolver.DIRECT.resolve(null, List.of())).isNull();
        assertThat(ClientIpResolver.DIRECT.resolve("localhost", List.of())).isNull();
    }

    @Test
    void badTrustedProxiesAreRejectedSayingWhy() {
        assertThatIllegalArgumentException().isThrownBy(() -> ClientIpResolver.checkTrustedProxy("10.0.0.0/33"))
            .withMessageContaining("'/33'").withMessageContaining("0 to 32");
        assertThatIllegalArgumentException().isThrownBy(() -> ClientIpResolver.checkTrustedProxy("proxy.internal"))
            .withMessageContaining("'proxy.internal' is not an IPv4 or IPv6 address");
        assertThatIllegalArgumentException().isThrownBy(() -> ClientIpResolver.checkTrustedProxy("2001:db8::/129"))
            .withMessageContaining("0 to 128");
        assertThatIllegalArgumentException().isThrownBy(() -> ClientIpResolver.checkTrustedProxy("10.0.0.0/x"));
        assertThatIllegalArgumentException().isThrownBy(() -> new ClientIpResolver(List.of(), 0, ForwardedHeader.FORWARDED));
    }
}
