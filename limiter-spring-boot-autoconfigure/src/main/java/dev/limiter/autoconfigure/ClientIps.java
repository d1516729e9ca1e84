package dev.limiter.autoconfigure;

import java.util.List;

import dev.limiter.spring.web.ClientIpResolver;
import dev.limiter.spring.LimiterConfigurationException;

/** Builds the {@link ClientIpResolver} of {@code limiter.client-ip.*}, naming the property of a bad value. */
final class ClientIps {

    private static final String PREFIX = "limiter.client-ip.";

    private ClientIps() {
    }

    static ClientIpResolver resolver(LimiterProperties.ClientIp properties) {
        List<String> proxies = properties.getTrustedProxies();
        for (int i = 0; i < proxies.size(); i++) {
            String proxy = proxies.get(i);
            try {
                ClientIpResolver.checkTrustedProxy(proxy);
            }
            catch (IllegalArgumentException ex) {
                throw new LimiterConfigurationException(PREFIX + "trusted-proxies[" + i + "]", proxy,
                        "Not an IP address or CIDR block: " + ex.getMessage(),
                        "Write an address or a CIDR block of the proxies in front of the application, such as 10.0.0.0/8, "
                                + "192.0.2.7 or 2001:db8::/32 (no host names: they could change behind the limiter's back)");
            }
        }
        int prefixLength = properties.getIpv6PrefixLength();
        if (prefixLength < 1 || prefixLength > 128) {
            throw new LimiterConfigurationException(PREFIX + "ipv6-prefix-length", prefixLength,
                    "An IPv6 prefix length is 1 to 128", "Use 64 to group each /64 (one host's share), or 128 for exact addresses");
        }
        return new ClientIpResolver(proxies, prefixLength, properties.getForwardedHeader());
    }
}
