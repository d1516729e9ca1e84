package dev.limiter.sample;

import java.math.BigDecimal;

/** An order as the API shows it. */
public record Order(String id, String userId, String item, int quantity, BigDecimal total) {
}
