package dev.limiter.sample;

import java.util.Map;

import dev.limiter.spring.RateLimited;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Checkout, under a new limit being rolled out in shadow mode (limiter {@code checkout},
 * {@code shadow: true}): every call proceeds, and metric {@code limiter.decisions} counts those the
 * limit would have rejected as {@code outcome=shadow_rejected}.
 */
@RestController
@RequestMapping("/api")
public class CheckoutController {

    @PostMapping("/checkout")
    @ResponseStatus(HttpStatus.CREATED)
    @RateLimited(name = "checkout", key = "#userId")
    public Map<String, String> checkout(@RequestHeader("X-User-Id") String userId) {
        return Map.of("status", "placed", "userId", userId);
    }
}
