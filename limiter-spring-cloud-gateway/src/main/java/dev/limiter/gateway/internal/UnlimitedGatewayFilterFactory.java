package dev.limiter.gateway.internal;

import java.util.List;

import dev.limiter.gateway.LimiterGatewayFilterFactory;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;

/**
 * The reactive gateway's {@code Limiter} filter while {@code limiter.enabled} is false: routes naming it
 * still load, with the same arguments, and every request goes on unlimited, with no header field and
 * no call to Redis.
 */
public final class UnlimitedGatewayFilterFactory extends AbstractGatewayFilterFactory<LimiterGatewayFilterFactory.Config> {

    private static final GatewayFilter UNLIMITED = (exchange, chain) -> chain.filter(exchange);

    public UnlimitedGatewayFilterFactory() {
        super(LimiterGatewayFilterFactory.Config.class);
    }

    @Override
    public String name() {
        return "Limiter";
    }

    @Override
    public List<String> shortcutFieldOrder() {
        return List.of("limiter", "key", "cost");
    }

    @Override
    public GatewayFilter apply(LimiterGatewayFilterFactory.Config config) {
        return UNLIMITED;
    }
}
