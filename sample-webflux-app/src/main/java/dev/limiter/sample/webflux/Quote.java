package dev.limiter.sample.webflux;

import java.math.BigDecimal;

/** The price of a symbol as the API shows it; a tick is one of a series. */
public record Quote(String symbol, int tick, BigDecimal price) {
}
