package dev.limiter.sample.webflux;

import java.math.BigDecimal;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

/** Prices of symbols; a stand-in for a real, non-blocking market data client. */
@Service
public class QuoteService {

    public Mono<Quote> latest(String symbol) {
        return Mono.fromSupplier(() -> quote(symbol, 0));
    }

    public Flux<Quote> ticks(String symbol, int count) {
        return Flux.range(1, count).map((tick) -> quote(symbol, tick));
    }

    private static Quote quote(String symbol, int tick) {
        return new Quote(symbol, tick, new BigDecimal("100.00").add(BigDecimal.valueOf(tick, 2)));
    }
}
