package dev.limiter.sample.webflux;

import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The quotes API. Each user, identified by the {@code X-User-Id} header, gets the limits of the
 * limiters {@code quotes} and {@code ticks} configured in application.yml; beyond them the answer is
 * 429. Each request is decided when WebFlux subscribes to the endpoint's Mono or Flux, through
 * Redis' reactive API: no thread waits for Redis.
 */
@RestController
@RequestMapping("/api/quotes")
public class QuoteController {

    private final QuoteService quotes;

    public QuoteController(QuoteService quotes) {
        this.quotes = quotes;
    }

    @GetMapping("/{symbol}")
    @RateLimited(name = "quotes", key = "#userId")
    public Mono<Quote> latest(@PathVariable String symbol, @RequestHeader("X-User-Id") String userId) {
        return quotes.latest(symbol);
    }

    /** A series of ticks costs one permit of its own limiter, however many ticks it streams. */
    @GetMapping("/{symbol}/ticks")
    @RateLimited(name = "ticks", key = "#userId")
    public Flux<Quote> ticks(@PathVariable String symbol, @RequestHeader("X-User-Id") String userId) {
        return quotes.ticks(symbol, 3);
    }
}
