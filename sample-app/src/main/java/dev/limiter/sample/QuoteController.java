package dev.limiter.sample;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Live prices, limited per symbol (limiter {@code quotes}): beyond the limit, the fallback method
 * answers with the last price served instead of a 429.
 */
@RestController
@RequestMapping("/api")
public class QuoteController {

    private final Map<String, Quote> lastServed = new ConcurrentHashMap<>();

    @GetMapping("/quotes/{symbol}")
    @RateLimited(name = "quotes", key = "#symbol", fallbackMethod = "lastQuote")
    public Quote quote(@PathVariable String symbol) {
        // A stand-in for an expensive call to a price feed.
        BigDecimal price = BigDecimal.valueOf(100 + Math.floorMod(symbol.hashCode(), 900), 1).setScale(2, RoundingMode.UNNECESSARY);
        Quote quote = new Quote(symbol, price, true);
        lastServed.put(symbol, quote);
        return quote;
    }

    /** Answers a rejected call: the last price served, marked as not live. */
    Quote lastQuote(String symbol, RateLimitExceededException rejected) {
        Quote last = lastServed.get(symbol);
        return new Quote(symbol, (last != null) ? last.price() : null, false);
    }

    /** A price; {@code live} is false when it comes from the fallback. */
    public record Quote(String symbol, BigDecimal price, boolean live) {
    }
}
